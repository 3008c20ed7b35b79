"""Reading stored images: avatars, the realm's icon and logos, custom emoji, and their URLs."""

from __future__ import annotations

import hashlib
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.core.db import Conn

REALM_IMAGE_KINDS = ("icon", "logo", "night_logo")


def realm_image_url(realm_id: int, kind: str, version: int) -> str:
    return f"/user_avatars/{realm_id}/realm/{kind}.png?version={version}"


def realm_image_row(conn: Conn, realm_id: int, kind: str) -> Any:
    RI = schema.realm_image.c
    return conn.one(sa.select(schema.realm_image).where(RI.realm_id == realm_id, RI.kind == kind))


def realm_images(conn: Conn, realm_id: int) -> dict[str, tuple[str, str]]:
    """(url, source) of each realm image: source "U" uploaded, else Zulip's default code
    ("G" for the icon, "D" for the logos). Every URL answers: a default image is served."""
    RI = schema.realm_image.c
    rows = {
        r["kind"]: r for r in conn.all(sa.select(schema.realm_image).where(RI.realm_id == realm_id))
    }
    out = {}
    for kind in REALM_IMAGE_KINDS:
        row = rows.get(kind)
        version = row["version"] if row is not None else 1
        uploaded = row is not None and row["sha256"] is not None
        default = "G" if kind == "icon" else "D"
        out[kind] = (realm_image_url(realm_id, kind, version), "U" if uploaded else default)
    return out


def realm_image_state(conn: Conn, realm_id: int) -> dict[str, Any]:
    """The realm section's image keys (realm_icon_url, realm_logo_source, …)."""
    state: dict[str, Any] = {}
    for kind, (url, source) in realm_images(conn, realm_id).items():
        state[f"realm_{kind}_url"] = url
        state[f"realm_{kind}_source"] = source
    return state


def user_avatar_row(conn: Conn, realm_id: int, user_id: int) -> Any:
    U, V = schema.user.c, schema.user_avatar.c
    return conn.one(
        sa.select(V.sha256, V.content_type)
        .select_from(schema.user_avatar.join(schema.user, U.id == V.user_id))
        .where(V.user_id == user_id, U.realm_id == realm_id, U.avatar_source == "U")
    )


def realm_emoji_row(conn: Conn, realm_id: int, emoji_id: int) -> Any:
    E = schema.realm_emoji.c
    return conn.one(sa.select(schema.realm_emoji).where(E.id == emoji_id, E.realm_id == realm_id))


def default_image_color(key: str) -> tuple[int, int, int]:
    """A stable colour per realm and image, for the default images."""
    digest = hashlib.sha256(key.encode()).digest()
    return (64 + digest[0] // 2, 64 + digest[1] // 2, 64 + digest[2] // 2)
