"""The user settings of feature level 185 as clients read them: the catalogue of settings with
their types and choices, a user's `user_settings` state and the realm's defaults for new users."""

from __future__ import annotations

from typing import Any

import orjson

from atrium.chat import schema

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

SETTING_CHOICES: dict[str, tuple[Any, ...]] = {
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


def emojiset_choices() -> list[dict[str, str]]:
    return [{"key": code, "text": text} for code, text in EMOJISETS]


def user_settings(row: Any) -> dict[str, Any]:
    """The `user_settings` state: every setting, and the choices clients offer."""
    out: dict[str, Any] = {
        name: (bool(row[name]) if kind is bool else row[name])
        for name, kind in SETTING_TYPES.items()
    }
    out["emojiset_choices"] = emojiset_choices()
    out["available_notification_sounds"] = list(NOTIFICATION_SOUNDS)
    return out


# Settings a realm default exists for: every user setting but the personal time zone.
DEFAULT_SETTING_NAMES = tuple(name for name in SETTING_TYPES if name != "timezone")


def realm_user_defaults(realm_row: Any) -> dict[str, Any]:
    """`realm_user_settings_defaults`: the catalogue's defaults under the realm's own choices."""
    stored: dict[str, Any] = orjson.loads(realm_row["user_settings_defaults"] or "{}")
    out: dict[str, Any] = {
        name: stored.get(name, catalogue_default(name)) for name in DEFAULT_SETTING_NAMES
    }
    out["emojiset_choices"] = emojiset_choices()
    out["available_notification_sounds"] = list(NOTIFICATION_SOUNDS)
    return out


def catalogue_default(name: str) -> Any:
    if name == "enable_drafts_synchronization":
        return True
    return schema.USER_SETTING_DEFAULTS[name]
