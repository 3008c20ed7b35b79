"""PATCH /settings: a user's own settings, announced as `user_settings` update events.

Turning `enable_drafts_synchronization` off deletes the user's server-side drafts, as Zulip does.
"""

from __future__ import annotations

import functools
import zoneinfo
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.users import check_full_name
from atrium.chat.errors import ChatError
from atrium.chat.events import Notice, Outcome
from atrium.chat.languages import LANGUAGES
from atrium.chat.models import User
from atrium.chat.queries.users import active_user_ids, user_row
from atrium.core.db import Conn

U = schema.user.c

# The settings PATCH /settings writes, in the order it applies them.
USER_SETTINGS = (
    "timezone",
    "translate_emoticons",
    "enable_drafts_synchronization",
    "default_language",
)


@functools.cache
def _timezones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def is_known_timezone(name: str) -> bool:
    """An IANA zone name (Zulip's `check_timezone`); "" keeps "not set"."""
    return name == "" or name in _timezones()


def check_settings(changes: dict[str, Any]) -> dict[str, Any]:
    """Every value checked before anything is written."""
    checked = dict(changes)
    if checked.get("full_name") is not None:
        checked["full_name"] = check_full_name(checked["full_name"])
    timezone = checked.get("timezone")
    if timezone is not None and not is_known_timezone(timezone):
        raise ChatError("timezone is not a recognized time zone")
    language = checked.get("default_language")
    if language is not None and language not in LANGUAGES:
        raise ChatError("Invalid default_language")
    return checked


def change_settings(conn: Conn, actor: User, changes: dict[str, Any]) -> Outcome[None]:
    checked = check_settings(changes)
    row = user_row(conn, actor.realm_id, actor.id)
    notices: list[Notice] = []
    everyone = active_user_ids(conn, actor.realm_id)
    full_name = checked.get("full_name")
    if full_name is not None and full_name != row["full_name"]:
        conn.execute(sa.update(schema.user).where(U.id == actor.id).values(full_name=full_name))
        person = {"user_id": actor.id, "full_name": full_name}
        notices.append(Notice({"type": "realm_user", "op": "update", "person": person}, everyone))
    for name in USER_SETTINGS:
        value = checked.get(name)
        if value is None or value == row[name]:
            continue
        conn.execute(sa.update(schema.user).where(U.id == actor.id).values({name: value}))
        if name == "enable_drafts_synchronization" and not value:
            # As Zulip: the stored drafts go, with no `drafts` events (the clients keep theirs;
            # only the synchronization stopped).
            conn.execute(sa.delete(schema.draft).where(schema.draft.c.user_id == actor.id))
        event: dict[str, Any] = {
            "type": "user_settings",
            "op": "update",
            "property": name,
            "value": value,
        }
        if name == "default_language":
            event["language_name"] = LANGUAGES[value]
        notices.append(Notice(event, [actor.id]))
        if name == "timezone":
            person = {"user_id": actor.id, "timezone": value}
            notices.append(
                Notice({"type": "realm_user", "op": "update", "person": person}, everyone)
            )
    return Outcome(None, notices)
