"""The same person in the other service: the workspace identity links each member's chat user to
their wiki user. A user no identity owns (a bot, a wiki-only editor) is a stranger to the other
service, and a deactivated person is no one in either."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.chat import schema as chat_schema
from atrium.chat.auth import user_row_by_id
from atrium.chat.models import User
from atrium.chat.runtime import ChatRuntime
from atrium.core.db import Conn, Database
from atrium.core.identity_schema import identity as I
from atrium.core.identity_schema import identity_account as A
from atrium.workspace import identities
from atrium.workspace.identities import CHAT, WIKI


def _counterpart(conn: Conn, service: str, user_id: int, other: str) -> int | None:
    owner = identities.by_account(conn, service, user_id)
    if owner is None or not owner["active"]:
        return None
    account = identities.accounts(conn, int(owner["id"])).get(other)
    return int(account["user_id"]) if account is not None and account["user_id"] else None


def _counterparts(conn: Conn, service: str, user_ids: list[int], other: str) -> dict[int, int]:
    """`_counterpart` for many users in one query: user id -> the other service's user id."""
    mine, theirs = A.alias("mine"), A.alias("theirs")
    rows = conn.all(
        sa.select(mine.c.user_id.label("mine"), theirs.c.user_id.label("theirs"))
        .join(I, I.c.id == mine.c.identity_id)
        .join(theirs, theirs.c.identity_id == I.c.id)
        .where(
            mine.c.service == service,
            mine.c.user_id.in_(user_ids),
            theirs.c.service == other,
            theirs.c.user_id.is_not(None),
            I.c.active.is_(True),
        )
    )
    return {int(r["mine"]): int(r["theirs"]) for r in rows}


def _active_chat_users(conn: Conn, user_ids: list[int]) -> dict[int, User]:
    U, R = chat_schema.user.c, chat_schema.realm.c
    rows = conn.all(
        sa.select(chat_schema.user)
        .join(chat_schema.realm, R.id == U.realm_id)
        .where(
            U.id.in_(user_ids), U.is_active.is_(True), U.is_bot.is_(False),
            R.deactivated.is_(False),
        )
    )  # fmt: skip
    return {int(r["id"]): User.from_row(r) for r in rows}


def _core_db(chat: ChatRuntime) -> Database | None:
    # The identity store is the session store's database (`core`), which the chat is given.
    return chat.sessions.db if chat.sessions is not None else None


async def wiki_user_of(chat: ChatRuntime, chat_user: User) -> int | None:
    """The wiki user of this chat user's person (None: they read the wiki as anyone would)."""
    core = _core_db(chat)
    if core is None:
        return None
    return await core.read(_counterpart, CHAT, chat_user.id, WIKI)


async def chat_user_of(chat: ChatRuntime, wiki_user_id: int | None) -> User | None:
    """The active chat user of this wiki user's person, if any."""
    core = _core_db(chat)
    if core is None or wiki_user_id is None:
        return None
    chat_user_id = await core.read(_counterpart, WIKI, wiki_user_id, CHAT)
    if chat_user_id is None:
        return None
    row = await chat.db.read(user_row_by_id, chat_user_id)
    if row is None or not row["is_active"] or row["realm_deactivated"] or row["is_bot"]:
        return None
    return User.from_row(row)


# Asked of a database at once.
CHUNK = 500


async def chat_users_of(chat: ChatRuntime, wiki_user_ids: list[int]) -> dict[int, User]:
    """`chat_user_of` for many wiki users (a page's watchers): wiki user id -> chat user."""
    core = _core_db(chat)
    found: dict[int, User] = {}
    if core is None:
        return found
    for start in range(0, len(wiki_user_ids), CHUNK):
        chunk = wiki_user_ids[start : start + CHUNK]
        chat_ids = await core.read(_counterparts, WIKI, chunk, CHAT)
        users = await chat.db.read(_active_chat_users, sorted(set(chat_ids.values())))
        found.update({w: users[c] for w, c in chat_ids.items() if c in users})
    return found
