"""PATCH /realm: the organization's name, description, policies and limits.

Each change is announced as Zulip 7 announces it, one event per setting to every active user: a
`realm` event with `op: "update"`, `property` and `value`, except for the three message-editing
settings whose events keep their historical `update_dict` shape (`property: "default"`,
`data: {name: value}`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import ChatError, must_be_admin, must_be_owner
from atrium.chat.events import Notice, Outcome
from atrium.chat.languages import LANGUAGES
from atrium.chat.models import User
from atrium.chat.queries.realm import load_realm
from atrium.chat.queries.streams import active_subscription, stream_by_id
from atrium.chat.queries.users import active_user_ids
from atrium.core.db import Conn

MAX_REALM_NAME_LENGTH = 40
MAX_REALM_DESCRIPTION_LENGTH = 1000

COMMON_POLICY_TYPES = (1, 2, 3, 4)

# setting -> the values Zulip 7 accepts (checked as "Invalid <setting>").
POLICY_SETTINGS: dict[str, tuple[int, ...]] = {
    "create_public_stream_policy": COMMON_POLICY_TYPES,
    "create_private_stream_policy": COMMON_POLICY_TYPES,
    "invite_to_stream_policy": COMMON_POLICY_TYPES,
    "user_group_edit_policy": COMMON_POLICY_TYPES,
    "create_web_public_stream_policy": (2, 4, 6, 7),
    "edit_topic_policy": (1, 2, 3, 4, 5, 6),
    "move_messages_between_streams_policy": (1, 2, 3, 4, 6),
    "delete_own_message_policy": (1, 2, 3, 4, 5),
    "wildcard_mention_policy": (1, 2, 3, 5, 6, 7),
    "private_message_policy": (1, 2),
    "invite_to_realm_policy": (1, 2, 3, 4, 6),
    "bot_creation_policy": (1, 2, 3),
    "add_custom_emoji_policy": COMMON_POLICY_TYPES,
}
# Other settings with a fixed set of values.
CHOICE_SETTINGS: dict[str, tuple[int, ...]] = {
    "video_chat_provider": (0, 1),
    "giphy_rating": (0, 1, 2, 3, 4, 5),
    "digest_weekday": (0, 1, 2, 3, 4, 5, 6),
    "org_type": (0, 10, 20, 30, 35, 40, 50, 60, 70),
}
# Announcement streams: a stream id, or -1 for none.
STREAM_SETTINGS = ("notifications_stream_id", "signup_notifications_stream_id")
# The settings whose events keep the `update_dict` shape in Zulip 7.
UPDATE_DICT_SETTINGS = frozenset(
    {"allow_message_editing", "edit_topic_policy", "message_content_edit_limit_seconds"}
)
BOOLEAN_SETTINGS = (
    "allow_message_editing",
    "allow_edit_history",
    "mandatory_topics",
    "enable_spectator_access",
    "invite_required",
    "emails_restricted_to_domains",
    "disallow_disposable_email_addresses",
    "name_changes_disabled",
    "email_changes_disabled",
    "avatar_changes_disabled",
    "inline_image_preview",
    "inline_url_embed_preview",
    "digest_emails_enabled",
    "send_welcome_emails",
    "message_content_allowed_in_email_notifications",
    "want_advertise_in_communities_directory",
    "enable_read_receipts",
)
# Time limits: a positive number of seconds, or "unlimited" (stored as NULL, shown as null).
LIMIT_SETTINGS = (
    "message_content_edit_limit_seconds",
    "message_content_delete_limit_seconds",
    "move_messages_within_stream_limit_seconds",
    "move_messages_between_streams_limit_seconds",
)
STRING_SETTINGS = ("name", "description", "default_language", "default_code_block_language")
OTHER_SETTINGS = ("waiting_period_threshold", "message_retention_days")
REALM_SETTINGS = (
    *STRING_SETTINGS,
    *CHOICE_SETTINGS,
    *STREAM_SETTINGS,
    *BOOLEAN_SETTINGS,
    *POLICY_SETTINGS,
    *LIMIT_SETTINGS,
    *OTHER_SETTINGS,
)


@dataclass(frozen=True)
class Unlimited:
    """A limit explicitly set to "unlimited" (distinct from "not given")."""


UNLIMITED = Unlimited()


def bad_value(name: str, value: Any) -> ChatError:
    return ChatError(
        f"Bad value for '{name}': {value}",
        "REQUEST_VARIABLE_INVALID",
        var_name=name,
        bad_value=value,
    )


def parse_limit(name: str, value: int | str) -> int | Unlimited:
    if value == "unlimited":
        return UNLIMITED
    if isinstance(value, str) or value <= 0:
        raise bad_value(name, value)
    return value


def parse_retention(name: str, value: int | str, special: dict[str, int | None]) -> int | None:
    """Zulip's `parse_message_retention_days`: the special words, or a positive integer.

    The legacy `forever` (replaced by `unlimited` at feature level 91) is a bad value.
    """
    if isinstance(value, str) and value in special:
        return special[value]
    if isinstance(value, str) or value <= 0:
        raise bad_value(name, value)
    return value


def check_realm_changes(actor: User, changes: dict[str, Any]) -> dict[str, Any]:
    """Validated values to store, by column (None meaning NULL for limits)."""
    out: dict[str, Any] = {}
    for name, value in changes.items():
        if value is None:
            continue
        if name == "name":
            if len(value) > MAX_REALM_NAME_LENGTH:
                raise ChatError(f"name is too long (limit: {MAX_REALM_NAME_LENGTH} characters)")
            if not value.strip():
                raise ChatError("Organization name can't be empty.")
        elif name == "description":
            if len(value) > MAX_REALM_DESCRIPTION_LENGTH:
                raise ChatError(
                    f"description is too long (limit: {MAX_REALM_DESCRIPTION_LENGTH} characters)"
                )
        elif name == "default_language":
            if value not in LANGUAGES:
                raise ChatError(f"Invalid language '{value}'")
        elif name in POLICY_SETTINGS:
            if value not in POLICY_SETTINGS[name]:
                raise ChatError(f"Invalid {name}")
        elif name in CHOICE_SETTINGS:
            if value not in CHOICE_SETTINGS[name]:
                raise ChatError(f"Invalid {name} {value}")
        elif name == "default_code_block_language":
            value = value or None
        elif name in LIMIT_SETTINGS:
            parsed = parse_limit(name, value)
            value = None if parsed is UNLIMITED else parsed
        elif name == "waiting_period_threshold":
            if value < 0:
                raise bad_value(name, value)
        elif name == "message_retention_days":
            if not actor.is_owner:
                raise must_be_owner()
            value = parse_retention(name, value, {"unlimited": -1})
        out[name] = value
    return out


def update_realm(conn: Conn, actor: User, changes: dict[str, Any]) -> Outcome[dict[str, Any]]:
    """Apply the changed settings; the response data names each (strings as "updated")."""
    if not actor.is_admin:
        raise must_be_admin()
    given = {name: value for name, value in changes.items() if value is not None}
    checked = check_realm_changes(actor, given)
    realm = load_realm(conn, actor.realm_id)
    data: dict[str, Any] = {}
    notices: list[Notice] = []
    audience = active_user_ids(conn, actor.realm_id)
    for name, stream_id in checked.items():
        if name in STREAM_SETTINGS and stream_id != -1:
            stream = stream_by_id(conn, actor.realm_id, stream_id)
            if stream is None or (
                stream["invite_only"] and not active_subscription(conn, actor.id, stream_id)
            ):
                raise ChatError("Invalid stream ID")
    for name, value in checked.items():
        if name in STREAM_SETTINGS:
            value = None if value == -1 else value
        current = realm.setting(name)
        if name == "message_retention_days" and current is None:
            current = -1
        if current == value:
            continue
        conn.execute(
            sa.update(schema.realm).where(schema.realm.c.id == actor.realm_id).values({name: value})
        )
        shown = -1 if name in STREAM_SETTINGS and value is None else value
        data[name] = "updated" if isinstance(value, str) else shown
        event: dict[str, Any]
        if name in UPDATE_DICT_SETTINGS:
            event = {
                "type": "realm",
                "op": "update_dict",
                "property": "default",
                "data": {name: value},
            }
        else:
            event = {"type": "realm", "op": "update", "property": name, "value": shown}
        notices.append(Notice(event, audience))
    return Outcome(data, notices)
