"""POST /register's sections at feature level 185, PATCH /settings for every user setting, and
PATCH /realm/user_settings_defaults."""

from __future__ import annotations

from typing import Any

import pytest

from atrium.chat.queries.user_settings import SETTING_TYPES
from tests.chat.conftest import (
    ChatHarness,
    api_ok,
    assert_json_error,
    assert_json_success,
    listen,
)

pytestmark = pytest.mark.anyio

# Every user setting of feature level 185 (Zulip 7.0), besides the two lists of choices.
FL185_USER_SETTINGS = {
    "twenty_four_hour_time", "dense_mode", "web_mark_read_on_scroll_policy",
    "starred_message_counts", "fluid_layout_width", "high_contrast_mode", "color_scheme",
    "translate_emoticons", "display_emoji_reaction_users", "default_language", "default_view",
    "escape_navigates_to_default_view", "left_side_userlist", "emojiset",
    "demote_inactive_streams", "user_list_style", "timezone", "enter_sends",
    "enable_drafts_synchronization", "enable_stream_desktop_notifications",
    "enable_stream_email_notifications", "enable_stream_push_notifications",
    "enable_stream_audible_notifications", "notification_sound", "enable_desktop_notifications",
    "enable_sounds", "email_notifications_batching_period_seconds",
    "enable_offline_email_notifications", "enable_offline_push_notifications",
    "enable_online_push_notifications", "enable_digest_emails", "enable_marketing_emails",
    "enable_login_emails", "message_content_in_email_notifications",
    "pm_content_in_desktop_notifications", "wildcard_mentions_notify",
    "desktop_icon_count_display", "realm_name_in_email_notifications_policy", "presence_enabled",
    "send_private_typing_notifications", "send_stream_typing_notifications",
    "send_read_receipts", "email_address_visibility",
}  # fmt: skip

REALM_KEYS = {
    "realm_notifications_stream_id", "realm_signup_notifications_stream_id", "realm_icon_url",
    "realm_icon_source", "realm_logo_url", "realm_logo_source", "realm_night_logo_url",
    "realm_night_logo_source", "realm_authentication_methods", "realm_bot_domain",
    "realm_invite_required", "realm_invite_to_realm_policy", "realm_bot_creation_policy",
    "realm_add_custom_emoji_policy", "realm_video_chat_provider", "realm_giphy_rating",
    "max_avatar_file_size_mib", "max_icon_file_size_mib", "max_logo_file_size_mib",
    "password_min_length", "password_min_guesses", "server_inline_image_preview",
    "server_inline_url_embed_preview", "server_avatar_changes_disabled",
    "server_name_changes_disabled", "server_emoji_data_url", "realm_enable_read_receipts",
    "realm_default_code_block_language", "realm_digest_weekday", "realm_org_type",
    "realm_emails_restricted_to_domains", "realm_available_video_chat_providers",
    "giphy_rating_options", "realm_presence_disabled", "realm_email_changes_disabled",
    "realm_name_changes_disabled", "realm_avatar_changes_disabled", "realm_upload_quota_mib",
    "realm_want_advertise_in_communities_directory", "realm_default_external_accounts",
    "jitsi_server_url", "server_generation", "realm_plan_type",
}  # fmt: skip


async def register(chat: ChatHarness, user: Any, **params: Any) -> dict[str, Any]:
    return await api_ok(chat, "POST", "/register", user, **params)


async def test_all_sections(chat: ChatHarness) -> None:
    state = await register(chat, chat.hamlet)  # no event_types: every section
    assert state.keys() >= REALM_KEYS
    assert set(state["user_settings"]) == FL185_USER_SETTINGS | {
        "emojiset_choices",
        "available_notification_sounds",
    }
    for key in (
        "presences", "server_timestamp", "alert_words", "muted_users", "user_status",
        "realm_default_stream_groups", "realm_user_settings_defaults", "stop_words", "hotspots",
        "realm_filters", "has_zoom_token",
    ):  # fmt: skip
        assert key in state, key
    assert state["realm_filters"] == []
    assert "the" in state["stop_words"]
    assert state["realm_notifications_stream_id"] == -1
    assert state["realm_authentication_methods"]["Email"] is True
    # Without user_settings_object, the settings are also at the top level (legacy clients).
    assert state["twenty_four_hour_time"] is False and state["emojiset"] == "google"
    assert state["enable_sounds"] is True and "available_notification_sounds" in state
    modern = await register(chat, chat.hamlet, client_capabilities={"user_settings_object": True})
    assert "twenty_four_hour_time" not in modern and "user_settings" in modern


async def test_sections_on_request(chat: ChatHarness) -> None:
    state = await register(
        chat, chat.hamlet, fetch_event_types=["presence", "realm_user_settings_defaults"]
    )
    assert set(state) - {"result", "msg", "queue_id", "last_event_id", "zulip_version",
                         "zulip_feature_level", "zulip_merge_base"} == {
        "presences", "server_timestamp", "realm_user_settings_defaults",
    }  # fmt: skip
    defaults = state["realm_user_settings_defaults"]
    assert "timezone" not in defaults and defaults["color_scheme"] == 1


def _new_value(name: str, kind: type, current: Any) -> Any:
    special = {
        "timezone": "Europe/Paris",
        "default_language": "de",
        "default_view": "all_messages",
        "emojiset": "twitter",
        "notification_sound": "ding",
        "email_notifications_batching_period_seconds": 600,
        "user_list_style": 3,
    }
    if name in special:
        return special[name]
    if kind is bool:
        return not current
    return 2 if current != 2 else 3


async def test_every_setting_is_stored_and_announced(chat: ChatHarness) -> None:
    before = (await register(chat, chat.hamlet, fetch_event_types=["user_settings"]))[
        "user_settings"
    ]
    q = await listen(chat, chat.hamlet, ["user_settings"])
    changes = {
        name: _new_value(name, kind, before[name])
        for name, kind in SETTING_TYPES.items()
        if name != "enable_drafts_synchronization"
    }
    await api_ok(chat, "PATCH", "/settings", chat.hamlet, **changes)
    after = (await register(chat, chat.hamlet, fetch_event_types=["user_settings"]))[
        "user_settings"
    ]
    for name, value in changes.items():
        assert after[name] == value, name
    events = await q.events()
    assert {e["property"]: e["value"] for e in events} == changes
    assert next(e for e in events if e["property"] == "default_language")["language_name"]


async def test_setting_errors(chat: ChatHarness) -> None:
    cases = [
        ({"color_scheme": 7}, "Invalid color_scheme"),
        ({"emojiset": "apple"}, "Invalid emojiset"),
        ({"default_view": "inbox"}, "Invalid default_view"),
        ({"notification_sound": "boom"}, "Invalid notification sound 'boom'"),
        (
            {"email_notifications_batching_period_seconds": 5},
            "Invalid email batching period: 5 seconds",
        ),
        ({"timezone": "Mars/Olympus"}, "timezone is not a recognized time zone"),
        ({"dense_mode": "yes"}, "dense_mode is not valid JSON"),
        ({"enter_sends": 1}, "enter_sends is not a boolean"),
    ]
    for params, msg in cases:
        assert_json_error(await chat.patch("/settings", chat.hamlet, **params), msg)


async def test_realm_user_settings_defaults(chat: ChatHarness) -> None:
    q = await listen(chat, chat.cordelia, ["realm_user_settings_defaults"])
    assert_json_error(
        await chat.patch("/realm/user_settings_defaults", chat.hamlet, dense_mode=False),
        "Must be an organization administrator",
        code="UNAUTHORIZED_PRINCIPAL",
    )
    assert_json_error(
        await chat.patch("/realm/user_settings_defaults", chat.iago, emojiset="apple"),
        "Invalid emojiset",
    )
    await api_ok(
        chat, "PATCH", "/realm/user_settings_defaults", chat.iago, dense_mode=False, emojiset="text"
    )
    events = await q.events()
    assert [(e["op"], e["property"], e["value"]) for e in events] == [
        ("update", "dense_mode", False),
        ("update", "emojiset", "text"),
    ]
    state = await register(chat, chat.hamlet, fetch_event_types=["realm_user_settings_defaults"])
    assert state["realm_user_settings_defaults"]["emojiset"] == "text"
    newcomer = await chat.make_user("newcomer")
    settings = (await register(chat, newcomer, fetch_event_types=["user_settings"]))[
        "user_settings"
    ]
    assert settings["dense_mode"] is False and settings["emojiset"] == "text"


async def test_realm_settings_round_trip(chat: ChatHarness) -> None:
    sid = await chat.make_stream("announce", [chat.iago])
    q = await listen(chat, chat.hamlet, ["realm"])
    resp = await chat.patch(
        "/realm",
        chat.iago,
        notifications_stream_id=sid,
        bot_creation_policy=2,
        giphy_rating=3,
        enable_read_receipts=True,
    )
    assert assert_json_success(resp)["notifications_stream_id"] == sid
    events = await q.events()
    assert {e["property"]: e["value"] for e in events if e["op"] == "update"} == {
        "notifications_stream_id": sid,
        "bot_creation_policy": 2,
        "giphy_rating": 3,
        "enable_read_receipts": True,
    }
    state = await register(chat, chat.hamlet, fetch_event_types=["realm"])
    assert state["realm_notifications_stream_id"] == sid
    assert state["realm_bot_creation_policy"] == 2 and state["realm_giphy_rating"] == 3
    assert_json_error(
        await chat.patch("/realm", chat.iago, giphy_rating=9), "Invalid giphy_rating 9"
    )
    assert_json_error(
        await chat.patch("/realm", chat.iago, notifications_stream_id=999999), "Invalid stream ID"
    )
    assert_json_success(await chat.patch("/realm", chat.iago, notifications_stream_id=-1))
    state = await register(chat, chat.hamlet, fetch_event_types=["realm"])
    assert state["realm_notifications_stream_id"] == -1


async def test_humans_carry_null_bot_type(chat: ChatHarness) -> None:
    user = (await api_ok(chat, "GET", f"/users/{chat.hamlet.id}", chat.iago))["user"]
    assert user["bot_type"] is None and "bot_owner_id" not in user
    members = (await api_ok(chat, "GET", "/users", chat.iago))["members"]
    assert all(m["bot_type"] is None for m in members if not m["is_bot"])
