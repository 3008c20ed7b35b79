"""A user's bot passwords as `Special:BotPasswords` manages them (BotPassword::save/delete):
create one, change its grants (and reset its password), delete it. Changing or deleting a bot
password ends the sessions opened with it, as MediaWiki's new `bp_token` does, so a leaked
password stops working at once."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.changes import ChangeError
from atrium.wiki.reads.users import hash_password

BP = schema.bot_passwords
DEFAULT_RESTRICTIONS = '{"IPAddresses":["0.0.0.0/0","::/0"]}'


def _grants(grants: Iterable[str]) -> str:
    # MediaWiki's format: a JSON list of grant names.
    return json.dumps(list(dict.fromkeys(grants)), separators=(",", ":"))


def _exists(conn: Conn, user_id: int, app_id: str) -> bool:
    found = conn.scalar(
        sa.select(BP.c.bp_app_id).where(BP.c.bp_user == user_id, BP.c.bp_app_id == app_id)
    )
    return found is not None


def _end_sessions(conn: Conn, user_id: int, app_id: str) -> None:
    s = schema.session
    conn.execute(sa.delete(s).where(s.c.s_user == user_id, s.c.s_bot_app == app_id))


def insert_bot_password(conn: Conn, user_id: int, app_id: str, grants: Iterable[str]) -> str:
    """A new bot password; returns its generated password (shown once)."""
    if _exists(conn, user_id, app_id):
        raise ChangeError(
            "botpasswords-insert-failed",
            f'Failed to add bot name "{app_id}". Was it already added?',
            "botpasswords-insert-failed",
            (app_id,),
        )
    password = secrets.token_hex(16)
    conn.execute(
        sa.insert(BP).values(
            bp_user=user_id,
            bp_app_id=app_id,
            bp_password=hash_password(password),
            bp_token=secrets.token_hex(16),
            bp_restrictions=DEFAULT_RESTRICTIONS,
            bp_grants=_grants(grants),
        )
    )
    return password


def update_bot_password(
    conn: Conn, user_id: int, app_id: str, grants: Iterable[str], reset: bool
) -> str | None:
    """New grants, and a new password when `reset`; returns that password or None."""
    if not _exists(conn, user_id, app_id):
        raise ChangeError(
            "botpasswords-update-failed",
            f'Failed to update bot name "{app_id}". Was it deleted?',
            "botpasswords-update-failed",
            (app_id,),
        )
    values = {"bp_grants": _grants(grants), "bp_token": secrets.token_hex(16)}
    password = secrets.token_hex(16) if reset else None
    if password is not None:
        values["bp_password"] = hash_password(password)
    conn.execute(
        sa.update(BP).where(BP.c.bp_user == user_id, BP.c.bp_app_id == app_id).values(**values)
    )
    _end_sessions(conn, user_id, app_id)
    return password


def delete_bot_password(conn: Conn, user_id: int, app_id: str) -> bool:
    """Remove it (if it exists) and end its sessions; whether there was one."""
    gone = conn.execute(sa.delete(BP).where(BP.c.bp_user == user_id, BP.c.bp_app_id == app_id))
    _end_sessions(conn, user_id, app_id)
    return bool(gone.rowcount)
