"""Creating accounts, group memberships, bot passwords and user options."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Mapping

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.accounts.rights import EXPLICIT_GROUPS
from atrium.wiki.changes import ChangeError
from atrium.wiki.reads.users import hash_password
from atrium.wiki.timestamps import now14


def ensure_actor(conn: Conn, user_id: int | None, name: str) -> int:
    """The actor row of a user (or an IP address), created on first use."""
    query = sa.select(schema.actor.c.actor_id).where(schema.actor.c.actor_name == name)
    actor_id = conn.scalar(query)
    if actor_id is not None:
        return int(actor_id)
    conn.execute(sa.insert(schema.actor).values(actor_user=user_id, actor_name=name))
    return int(conn.scalar(query))


def create_user(
    conn: Conn,
    name: str,
    password: str | None,
    *,
    groups: Iterable[str] = (),
    email: str = "",
    real_name: str = "",
    registration: str | None = None,
    password_hash: str | None = None,
) -> int:
    """Create an account; `ChangeError("userexists")` if the name is taken."""
    exists = conn.scalar(sa.select(schema.user.c.user_id).where(schema.user.c.user_name == name))
    if exists is not None:
        raise ChangeError(
            "userexists",
            "Username entered already in use.\nPlease choose a different name.",
            "userexists",
        )
    stored = (
        password_hash
        if password_hash is not None
        else (hash_password(password) if password else "")
    )
    ts = registration or now14()
    conn.execute(
        sa.insert(schema.user).values(
            user_name=name,
            user_password=stored,
            user_email=email,
            user_real_name=real_name,
            user_registration=ts,
            user_touched=ts,
            user_editcount=0,
        )
    )
    user_id = int(
        conn.scalar(sa.select(schema.user.c.user_id).where(schema.user.c.user_name == name))
    )
    ensure_actor_for_user(conn, user_id, name)
    set_groups(conn, user_id, groups)
    return user_id


def ensure_actor_for_user(conn: Conn, user_id: int, name: str) -> int:
    actor_id = conn.scalar(
        sa.select(schema.actor.c.actor_id).where(schema.actor.c.actor_name == name)
    )
    if actor_id is None:
        conn.execute(sa.insert(schema.actor).values(actor_user=user_id, actor_name=name))
        actor_id = conn.scalar(
            sa.select(schema.actor.c.actor_id).where(schema.actor.c.actor_name == name)
        )
    else:
        conn.execute(
            sa.update(schema.actor)
            .where(schema.actor.c.actor_id == actor_id)
            .values(actor_user=user_id)
        )
    return int(actor_id)


def set_groups(conn: Conn, user_id: int, groups: Iterable[str]) -> None:
    """Add explicit group memberships (existing ones are kept)."""
    wanted = list(dict.fromkeys(g.strip() for g in groups if g.strip()))
    unknown = [g for g in wanted if g not in EXPLICIT_GROUPS]
    if unknown:
        raise ChangeError("badgroup", f"Unknown group: {', '.join(unknown)}.")
    have = set(
        conn.scalars(
            sa.select(schema.user_groups.c.ug_group).where(schema.user_groups.c.ug_user == user_id)
        )
    )
    rows = [{"ug_user": user_id, "ug_group": g, "ug_expiry": None} for g in wanted if g not in have]
    conn.executemany(sa.insert(schema.user_groups), rows)


def set_role_groups(
    conn: Conn, user_id: int, wanted: Iterable[str], managed: Iterable[str]
) -> None:
    """Make the groups another service's role decides exactly `wanted` among `managed`; the
    user's other groups stay as they are."""
    want = set(wanted)
    ug = schema.user_groups
    have = set(conn.scalars(sa.select(ug.c.ug_group).where(ug.c.ug_user == user_id)))
    drop = (set(managed) - want) & have
    if drop:
        conn.execute(sa.delete(ug).where(ug.c.ug_user == user_id, ug.c.ug_group.in_(sorted(drop))))
    set_groups(conn, user_id, sorted(want - have))


def set_password(conn: Conn, user_id: int, password: str, password_hash: str | None = None) -> None:
    """A new password; `password_hash` is it already hashed (off the event loop)."""
    stored = password_hash if password_hash is not None else hash_password(password)
    conn.execute(
        sa.update(schema.user)
        .where(schema.user.c.user_id == user_id)
        .values(user_password=stored, user_newpassword="", user_touched=now14())
    )


def set_email(conn: Conn, user_id: int, email: str) -> None:
    """A new email address (unconfirmed, as MediaWiki leaves a changed address)."""
    conn.execute(
        sa.update(schema.user)
        .where(schema.user.c.user_id == user_id)
        .values(
            user_email=email,
            user_email_authenticated=None,
            user_email_token=None,
            user_email_token_expires=None,
            user_touched=now14(),
        )
    )


def create_bot_password(conn: Conn, user_id: int, app_id: str, grants: Iterable[str] = ()) -> str:
    """A new bot password for `User@app_id`; returns the generated password (shown once)."""
    password = secrets.token_hex(16)
    conn.execute(
        sa.delete(schema.bot_passwords).where(
            schema.bot_passwords.c.bp_user == user_id, schema.bot_passwords.c.bp_app_id == app_id
        )
    )
    conn.execute(
        sa.insert(schema.bot_passwords).values(
            bp_user=user_id,
            bp_app_id=app_id,
            bp_password=hash_password(password),
            bp_token=secrets.token_hex(16),
            bp_restrictions='{"IPAddresses":["0.0.0.0/0","::/0"]}',
            # MediaWiki's format: a JSON list of grant names.
            bp_grants=json.dumps(list(grants), separators=(",", ":")),
        )
    )
    return password


def set_options(conn: Conn, user_id: int, changes: Mapping[str, str | None], reset: bool) -> None:
    """Change user options; a value of None restores the default."""
    table = schema.user_properties
    if reset:
        conn.execute(sa.delete(table).where(table.c.up_user == user_id))
    for name, value in changes.items():
        conn.execute(
            sa.delete(table).where(table.c.up_user == user_id, table.c.up_property == name)
        )
        if value is not None:
            conn.execute(sa.insert(table).values(up_user=user_id, up_property=name, up_value=value))
    conn.execute(
        sa.update(schema.user).where(schema.user.c.user_id == user_id).values(user_touched=now14())
    )
