"""Changing stored images: a user's avatar, the realm's icon, logo and night logo.

Each change bumps a version, which is part of the image's URL, so that clients and caches fetch
the new picture; the row names the bytes by content hash, so the previous bytes' hash is returned
for the caller to release once the change is committed.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import ChatError, must_be_admin
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.queries.images import REALM_IMAGE_KINDS, realm_images
from atrium.chat.queries.realm import load_realm
from atrium.chat.queries.users import active_user_ids, avatar_url
from atrium.core.db import Conn

U = schema.user.c
V = schema.user_avatar.c
RI = schema.realm_image.c


def _avatar_notice(conn: Conn, user_id: int) -> tuple[str, Notice]:
    row = conn.one(sa.select(schema.user).where(U.id == user_id))
    assert row is not None
    url = avatar_url(row, client_gravatar=False)
    assert url is not None
    person = {
        "user_id": user_id,
        "avatar_source": row["avatar_source"],
        "avatar_url": url,
        "avatar_url_medium": url,
        "avatar_version": row["avatar_version"],
    }
    event = {"type": "realm_user", "op": "update", "person": person}
    return url, Notice(event, active_user_ids(conn, row["realm_id"]))


def check_avatar_changes_allowed(conn: Conn, user: User) -> None:
    realm = load_realm(conn, user.realm_id)
    if realm.row.get("avatar_changes_disabled") and not user.is_admin:
        raise ChatError("Avatar changes are disabled in this organization.")


def set_avatar(
    conn: Conn, user: User, sha256: str | None, content_type: str | None
) -> Outcome[tuple[str, str | None]]:
    """Upload (`sha256` given) or go back to Gravatar (None); (the new URL, the old hash)."""
    check_avatar_changes_allowed(conn, user)
    old = conn.scalar(sa.select(V.sha256).where(V.user_id == user.id))
    conn.execute(sa.delete(schema.user_avatar).where(V.user_id == user.id))
    if sha256 is not None:
        conn.execute(
            sa.insert(schema.user_avatar).values(
                user_id=user.id, sha256=sha256, content_type=content_type
            )
        )
    conn.execute(
        sa.update(schema.user)
        .where(U.id == user.id)
        .values(avatar_source="U" if sha256 else "G", avatar_version=U.avatar_version + 1)
    )
    url, notice = _avatar_notice(conn, user.id)
    return Outcome((url, old if old != sha256 else None), [notice])


def set_realm_image(
    conn: Conn, actor: User, kind: str, sha256: str | None, content_type: str | None
) -> Outcome[tuple[str, str | None]]:
    """Upload or reset (None) the icon, logo or night logo; (the new URL, the old hash)."""
    if not actor.is_admin:
        raise must_be_admin()
    assert kind in REALM_IMAGE_KINDS
    row: Any = conn.one(
        sa.select(schema.realm_image).where(RI.realm_id == actor.realm_id, RI.kind == kind)
    )
    if row is None:
        conn.execute(
            sa.insert(schema.realm_image).values(
                realm_id=actor.realm_id,
                kind=kind,
                sha256=sha256,
                content_type=content_type,
                version=2,
            )
        )
        old = None
    else:
        conn.execute(
            sa.update(schema.realm_image)
            .where(RI.realm_id == actor.realm_id, RI.kind == kind)
            .values(sha256=sha256, content_type=content_type, version=RI.version + 1)
        )
        old = row["sha256"]
    url, source = realm_images(conn, actor.realm_id)[kind]
    event = {
        "type": "realm",
        "op": "update_dict",
        "property": kind,
        "data": {f"{kind}_url": url, f"{kind}_source": source},
    }
    notice = Notice(event, active_user_ids(conn, actor.realm_id))
    return Outcome((url, old if old != sha256 else None), [notice])
