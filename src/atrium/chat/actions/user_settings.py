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
from atrium.chat.queries.users import active_user_ids, user_row
from atrium.core.db import Conn

U = schema.user.c

# Zulip 7's choices, by setting.
EMOJISETS = (
    ("google", "Google"),
    ("twitter", "Twitter"),
    ("text", "Plain text"),
    ("google-blob", "Google blobs"),
)
NOTIFICATION_SOUNDS = ("chime", "ding", "swoosh", "zulip")
DEFAULT_VIEWS = ("recent_topics", "all_messages")
MIN_BATCHING_PERIOD = 120
MAX_BATCHING_PERIOD = 7 * 24 * 3600

_CHOICES: dict[str, tuple[Any, ...]] = {
    "color_scheme": (1, 2, 3),
    "web_mark_read_on_scroll_policy": (1, 2, 3),
    "demote_inactive_streams": (1, 2, 3),
    "user_list_style": (1, 2, 3),
    "desktop_icon_count_display": (1, 2, 3),
    "realm_name_in_email_notifications_policy": (1, 2, 3),
    "email_address_visibility": (1, 2, 3, 4, 5),
    "default_view": DEFAULT_VIEWS,
    "emojiset": tuple(code for code, _ in EMOJISETS),
}

# Every setting PATCH /settings writes, with its type, in the order it applies them: the four
# it always took first, then the rest of the catalogue.
SETTING_TYPES: dict[str, type] = {
    "timezone": str,
    "translate_emoticons": bool,
    "enable_drafts_synchronization": bool,
    "default_language": str,
    **{
        name: type(default)
        for name, default in schema.USER_SETTING_DEFAULTS.items()
        if name not in {"translate_emoticons", "default_language"}
    },
}
# The settings Zulip 7 sent at the top level of /register to clients that do not ask for the
# `user_settings` object: display settings and notification settings.
LEGACY_DISPLAY_SETTINGS = (
    "color_scheme",
    "default_language",
    "default_view",
    "demote_inactive_streams",
    "dense_mode",
    "emojiset",
    "enable_drafts_synchronization",
    "fluid_layout_width",
    "high_contrast_mode",
    "left_side_userlist",
    "starred_message_counts",
    "timezone",
    "translate_emoticons",
    "twenty_four_hour_time",
)
LEGACY_NOTIFICATION_SETTINGS = (
    "enable_desktop_notifications",
    "enable_digest_emails",
    "enable_login_emails",
    "enable_marketing_emails",
    "email_notifications_batching_period_seconds",
    "enable_offline_email_notifications",
    "enable_offline_push_notifications",
    "enable_online_push_notifications",
    "enable_sounds",
    "enable_stream_desktop_notifications",
    "enable_stream_email_notifications",
    "enable_stream_push_notifications",
    "enable_stream_audible_notifications",
    "wildcard_mentions_notify",
    "message_content_in_email_notifications",
    "notification_sound",
    "pm_content_in_desktop_notifications",
    "desktop_icon_count_display",
    "realm_name_in_email_notifications_policy",
    "presence_enabled",
)


@functools.cache
def _timezones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def is_known_timezone(name: str) -> bool:
    """An IANA zone name (Zulip's `check_timezone`); "" keeps "not set"."""
    return name == "" or name in _timezones()


def emojiset_choices() -> list[dict[str, str]]:
    return [{"key": code, "text": text} for code, text in EMOJISETS]


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
    elif name in _CHOICES and value not in _CHOICES[name]:
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


def user_settings(row: Any) -> dict[str, Any]:
    """The `user_settings` state: every setting, and the choices clients offer."""
    out: dict[str, Any] = {
        name: (bool(row[name]) if kind is bool else row[name])
        for name, kind in SETTING_TYPES.items()
    }
    out["emojiset_choices"] = emojiset_choices()
    out["available_notification_sounds"] = list(NOTIFICATION_SOUNDS)
    return out


def _setting_event(kind: str, name: str, value: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"type": kind, "op": "update", "property": name, "value": value}
    if name == "default_language":
        event["language_name"] = LANGUAGES[value]
    return event


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
    return Outcome(None, notices)


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


# --- The organization's defaults for new users -------------------------------------------------

# Settings a realm default exists for: every user setting but the personal time zone.
DEFAULT_SETTING_NAMES = tuple(name for name in SETTING_TYPES if name != "timezone")


def realm_user_defaults(realm_row: Any) -> dict[str, Any]:
    """`realm_user_settings_defaults`: the catalogue's defaults under the realm's own choices."""
    stored: dict[str, Any] = orjson.loads(realm_row["user_settings_defaults"] or "{}")
    out: dict[str, Any] = {
        name: stored.get(name, _catalogue_default(name)) for name in DEFAULT_SETTING_NAMES
    }
    out["emojiset_choices"] = emojiset_choices()
    out["available_notification_sounds"] = list(NOTIFICATION_SOUNDS)
    return out


def _catalogue_default(name: str) -> Any:
    if name == "enable_drafts_synchronization":
        return True
    return schema.USER_SETTING_DEFAULTS[name]


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
        if stored.get(name, _catalogue_default(name)) == value:
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
