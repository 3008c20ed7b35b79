"""POST /users/me/status: status text and emoji, and the legacy `away`, with `user_status` events
to everyone in the organization."""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.reactions import custom_emoji
from atrium.chat.actions.user_settings import change_settings
from atrium.chat.emoji_choice import check_emoji, code_for_name
from atrium.chat.errors import ChatError
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.queries.users import active_user_ids
from atrium.core.db import Conn

S = schema.user_status.c
MAX_STATUS_TEXT_LENGTH = 60


def set_status(
    conn: Conn,
    user: User,
    status_text: str | None,
    away: bool | None,
    emoji_name: str | None,
    emoji_code: str | None,
    reaction_type: str | None,
) -> Outcome[None]:
    if status_text is not None:
        status_text = status_text.strip()
        if len(status_text) > MAX_STATUS_TEXT_LENGTH:
            raise ChatError(f"status_text is too long (limit: {MAX_STATUS_TEXT_LENGTH} characters)")
    if away is None and status_text is None and emoji_name is None:
        raise ChatError("Client did not pass any new values.")
    if emoji_name is None and (emoji_code is not None or reaction_type is not None):
        raise ChatError(
            "Client must pass emoji_name if they pass either emoji_code or reaction_type."
        )
    if emoji_name == "":
        emoji_code, reaction_type = "", schema.REACTION_UNICODE
    elif emoji_name is not None:
        known = custom_emoji(conn, user.realm_id)
        if emoji_code is None:
            emoji_code, found_type = code_for_name(emoji_name, known)
            reaction_type = reaction_type or found_type
        reaction_type = reaction_type or schema.REACTION_UNICODE
        check_emoji(emoji_name, emoji_code, reaction_type, known)
    notices: list[Notice] = []
    if away is not None:
        # Since feature level 148 `away` is presence_enabled, inverted.
        notices.extend(change_settings(conn, user, {"presence_enabled": not away}).notices)
        notices = [n for n in notices if n.event["type"] != "user_status"]
    values: dict[str, Any] = {}
    if status_text is not None:
        values["status_text"] = status_text
    if emoji_name is not None:
        values.update(emoji_name=emoji_name, emoji_code=emoji_code, reaction_type=reaction_type)
    if values:
        values["timestamp"] = time.time()
        updated = conn.execute(
            sa.update(schema.user_status).where(S.user_id == user.id).values(values)
        ).rowcount
        if not updated:
            conn.execute(
                sa.insert(schema.user_status).values(
                    user_id=user.id, realm_id=user.realm_id, **values
                )
            )
    event: dict[str, Any] = {"type": "user_status", "user_id": user.id}
    if away is not None:
        event["away"] = away
    if status_text is not None:
        event["status_text"] = status_text
    if emoji_name is not None:
        event.update(emoji_name=emoji_name, emoji_code=emoji_code, reaction_type=reaction_type)
    notices.append(Notice(event, active_user_ids(conn, user.realm_id)))
    return Outcome(None, notices)
