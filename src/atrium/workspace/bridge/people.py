"""The same person in the other service: the workspace identity links each member's chat user to
their wiki user. A user no identity owns (a bot, a wiki-only editor) is a stranger to the other
service, and a deactivated person is no one in either."""

from __future__ import annotations

from atrium.chat.auth import user_row_by_id
from atrium.chat.models import User
from atrium.chat.runtime import ChatRuntime
from atrium.core.db import Conn, Database
from atrium.workspace import identities
from atrium.workspace.identities import CHAT, WIKI


def _counterpart(conn: Conn, service: str, user_id: int, other: str) -> int | None:
    owner = identities.by_account(conn, service, user_id)
    if owner is None or not owner["active"]:
        return None
    account = identities.accounts(conn, int(owner["id"])).get(other)
    return int(account["user_id"]) if account is not None and account["user_id"] else None


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
