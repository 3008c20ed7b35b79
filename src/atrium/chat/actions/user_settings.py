"""PATCH /settings and PATCH /realm/user_settings_defaults: every user setting of feature level
185, checked as Zulip checks it, stored, and announced as `user_settings` (or
`realm_user_settings_defaults`) update events.

Turning `enable_drafts_synchronization` off deletes the user's server-side drafts, as Zulip does.
"""

from __future__ import annotations

import functools
import zoneinfo
from typing import Any

import orjson
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.users import check_full_name
from atrium.chat.errors import ChatError, must_be_admin
from atrium.chat.events import Notice, Outcome
from atrium.chat.languages import LANGUAGES
from atrium.chat.models import User
from atrium.chat.queries.user_settings import (
    MAX_BATCHING_PERIOD,
    MIN_BATCHING_PERIOD,
    NOTIFICATION_SOUNDS,
    SETTING_CHOICES,
    SETTING_TYPES,
    catalogue_default,
)
from atrium.chat.queries.users import (
    Viewer,
    active_user_ids,
    api_email,
    can_see_delivery_email,
    user_row,
)
from atrium.core.db import Conn

U = schema.user.c


@functools.cache
def _timezones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def is_known_timezone(name: str) -> bool:
    """An IANA zone name (Zulip's `check_timezone`); "" keeps "not set"."""
    return name == "" or name in _timezones()


def check_setting(name: str, value: Any) -> Any:
    """One setting's value as Zulip 7's PATCH /settings checks it."""
    if name == "timezone":
        if not is_known_timezone(value):
            raise ChatError("timezone is not a recognized time zone")
    elif name == "default_language":
        if value not in LANGUAGES:
            raise ChatError("Invalid default_language")
    elif name == "notification_sound":
        if value not in NOTIFICATION_SOUNDS and value != "none":
            raise ChatError(f"Invalid notification sound '{value}'")
    elif name == "email_notifications_batching_period_seconds":
        if not MIN_BATCHING_PERIOD <= value <= MAX_BATCHING_PERIOD:
            raise ChatError(f"Invalid email batching period: {value} seconds")
    elif name in SETTING_CHOICES and value not in SETTING_CHOICES[name]:
        raise ChatError(f"Invalid {name}")
    return value


def check_settings(changes: dict[str, Any]) -> dict[str, Any]:
    """Every value checked before anything is written."""
    checked = dict(changes)
    if checked.get("full_name") is not None:
        checked["full_name"] = check_full_name(checked["full_name"])
    for name in SETTING_TYPES:
        if checked.get(name) is not None:
            checked[name] = check_setting(name, checked[name])
    return checked


def _setting_event(kind: str, name: str, value: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"type": kind, "op": "update", "property": name, "value": value}
    if name == "default_language":
        event["language_name"] = LANGUAGES[value]
    return event


def change_settings(
    conn: Conn, actor: User, changes: dict[str, Any], email_domain: str = "localhost"
) -> Outcome[None]:
    """PATCH /settings. `email_domain`: the server's host name, for the stand-in API address a
    restricted `email_address_visibility` gives."""
    checked = check_settings(changes)
    row = user_row(conn, actor.realm_id, actor.id)
    notices: list[Notice] = []
    everyone = active_user_ids(conn, actor.realm_id)
    full_name = checked.get("full_name")
    if full_name is not None and full_name != row["full_name"]:
        conn.execute(sa.update(schema.user).where(U.id == actor.id).values(full_name=full_name))
        person = {"user_id": actor.id, "full_name": full_name}
        notices.append(Notice({"type": "realm_user", "op": "update", "person": person}, everyone))
    for name in SETTING_TYPES:
        value = checked.get(name)
        if value is None or value == row[name]:
            continue
        conn.execute(sa.update(schema.user).where(U.id == actor.id).values({name: value}))
        if name == "enable_drafts_synchronization" and not value:
            # As Zulip: the stored drafts go, with no `drafts` events (the clients keep theirs;
            # only the synchronization stopped).
            conn.execute(sa.delete(schema.draft).where(schema.draft.c.user_id == actor.id))
        notices.append(Notice(_setting_event("user_settings", name, value), [actor.id]))
        notices.extend(_side_events(actor, name, value, everyone))
        if name == "email_address_visibility" and not row["is_bot"]:
            notices.extend(_change_email_visibility(conn, row, value, email_domain, everyone))
    return Outcome(None, notices)


def _change_email_visibility(
    conn: Conn, row: Any, visibility: int, domain: str, everyone: list[int]
) -> list[Notice]:
    """The API address follows the new visibility (real, or `user{id}@domain`); everyone hears
    of a new one, and each user whose access to the real address changed gets it (or null)."""
    notices: list[Notice] = []
    new_email = api_email(row["id"], row["delivery_email"], visibility, domain)
    if new_email != row["email"]:
        conn.execute(sa.update(schema.user).where(U.id == row["id"]).values(email=new_email))
        person = {"user_id": row["id"], "new_email": new_email}
        notices.append(Notice({"type": "realm_user", "op": "update", "person": person}, everyone))
    old = row["email_address_visibility"]
    gained: list[int] = []
    lost: list[int] = []
    for r in conn.all(sa.select(U.id, U.role).where(U.id.in_(everyone))):
        uid = int(r["id"])
        viewer = Viewer(uid, int(r["role"]))
        before = can_see_delivery_email(viewer, row["id"], old)
        after = can_see_delivery_email(viewer, row["id"], visibility)
        if before != after:
            (gained if after else lost).append(uid)
    for audience, address in ((gained, row["delivery_email"]), (lost, None)):
        if audience:
            person = {"user_id": row["id"], "delivery_email": address}
            event = {"type": "realm_user", "op": "update", "person": person}
            notices.append(Notice(event, sorted(audience)))
    return notices


def _side_events(actor: User, name: str, value: Any, everyone: list[int]) -> list[Notice]:
    """What other users learn of a setting change (Zulip 7's do_change_user_setting)."""
    if name == "timezone":
        person = {"user_id": actor.id, "timezone": value}
        return [Notice({"type": "realm_user", "op": "update", "person": person}, everyone)]
    if name == "presence_enabled":
        # The legacy `away` of user_status mirrors presence_enabled since feature level 148.
        status = {"type": "user_status", "user_id": actor.id, "away": not value}
        return [Notice(status, everyone)]
    return []


def change_realm_user_defaults(conn: Conn, actor: User, changes: dict[str, Any]) -> Outcome[None]:
    if not actor.is_admin:
        raise must_be_admin()
    given = {name: v for name, v in changes.items() if v is not None}
    for name, value in given.items():
        check_setting(name, value)
    R = schema.realm.c
    raw = conn.scalar(sa.select(R.user_settings_defaults).where(R.id == actor.realm_id))
    stored: dict[str, Any] = orjson.loads(raw or "{}")
    notices: list[Notice] = []
    everyone = active_user_ids(conn, actor.realm_id)
    for name, value in given.items():
        if stored.get(name, catalogue_default(name)) == value:
            continue
        stored[name] = value
        notices.append(
            Notice(_setting_event("realm_user_settings_defaults", name, value), everyone)
        )
    if notices:
        conn.execute(
            sa.update(schema.realm)
            .where(R.id == actor.realm_id)
            .values(user_settings_defaults=orjson.dumps(stored).decode())
        )
    return Outcome(None, notices)
