"""The initial state POST /register returns, one function per state section Zulip names.

A client asks for sections with `fetch_event_types` (default: its `event_types`; null: all), and
each section is what Zulip returns for that event type, so that applying later events to it keeps
it current.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa

from atrium.chat import flags, schema
from atrium.chat.emoji_data import EMOJI_DATA_PATH
from atrium.chat.events.state_assets import asset_sections
from atrium.chat.limits import (
    MAX_MESSAGE_LENGTH,
    MAX_STREAM_DESCRIPTION_LENGTH,
    MAX_STREAM_NAME_LENGTH,
    MAX_TOPIC_LENGTH,
)
from atrium.chat.models import ROLE_MODERATOR, Realm, User
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries import users as user_queries
from atrium.chat.queries.alert_words import user_alert_words
from atrium.chat.queries.default_streams import default_stream_dicts
from atrium.chat.queries.drafts import user_drafts
from atrium.chat.queries.flag_rows import with_flag
from atrium.chat.queries.groups import realm_groups
from atrium.chat.queries.linkifiers import linkifier_dicts, playground_dicts
from atrium.chat.queries.muted_users import muted_user_dicts
from atrium.chat.queries.presence import (
    OFFLINE_THRESHOLD_SECONDS,
    PING_INTERVAL_SECONDS,
    realm_presences,
)
from atrium.chat.queries.realm import load_realm
from atrium.chat.queries.scheduled_messages import user_scheduled_messages
from atrium.chat.queries.system_bots import cross_realm_bot_dicts
from atrium.chat.queries.user_settings import (
    LEGACY_DISPLAY_SETTINGS,
    LEGACY_NOTIFICATION_SETTINGS,
    realm_user_defaults,
    user_settings,
)
from atrium.chat.queries.user_status import realm_statuses
from atrium.chat.queries.user_topics import muted_topic_tuples, user_topic_dicts
from atrium.chat.stop_words import STOP_WORDS
from atrium.core.db import Conn

# Zulip's bound on `unread_msgs` (MAX_UNREAD_MESSAGES): the newest this many are sent.
MAX_UNREAD_MESSAGES = 50_000
# DM conversations in `recent_private_conversations`, the most recent first.
RECENT_CONVERSATIONS_LIMIT = 1000

# Realm columns that are not settings clients see under `realm_<name>`.
_NOT_SETTINGS = {
    "id",
    "string_id",
    "deactivated",
    "date_created",
    "name",
    "description",
    # A user setting since feature level 163, not a realm one.
    "email_address_visibility",
    # Bookkeeping of the fetch caches (chat.queries.message_display).
    "message_display_version",
    # Shown as its own section, realm_user_settings_defaults.
    "user_settings_defaults",
}
_BOOLEAN_COLUMNS = {c.name for c in schema.realm.c if isinstance(c.type, sa.Boolean)}

# Where the organization's image is served (the default for the icon and both logos).
REALM_IMAGE_PATH = "/static/images/logo/atrium-icon.png"
MAX_IMAGE_FILE_SIZE_MIB = 5
PLAN_SELF_HOSTED = 1
JITSI_SERVER_URL = "https://meet.jit.si"
# Changes when the server restarts: clients reload when it does (Zulip's server_generation).
SERVER_GENERATION = int(time.time())
AUTHENTICATION_METHODS = {
    "Email": True,
    "Dev": False,
    "LDAP": False,
    "GitHub": False,
    "GitLab": False,
    "Google": False,
    "AzureAD": False,
    "Apple": False,
    "SAML": False,
    "OpenID Connect": False,
}
VIDEO_CHAT_PROVIDERS = {
    "disabled": {"name": "None", "id": 0},
    "jitsi_meet": {"name": "Jitsi Meet", "id": 1},
}
GIPHY_RATING_OPTIONS = {
    "disabled": {"name": "GIPHY integration disabled", "id": 0},
    "y": {"name": "Allow GIFs rated Y (Very young audience)", "id": 1},
    "g": {"name": "Allow GIFs rated G (General audience)", "id": 2},
    "pg": {"name": "Allow GIFs rated PG (Parental guidance)", "id": 3},
    "pg13": {"name": "Allow GIFs rated PG-13 (Parental guidance - under 13)", "id": 4},
    "r": {"name": "Allow GIFs rated R (Restricted)", "id": 5},
}
DEFAULT_EXTERNAL_ACCOUNTS = {
    "twitter": {
        "text": "Twitter",
        "url_pattern": "https://twitter.com/%(username)s",
        "name": "Twitter",
        "hint": "Enter your Twitter username",
    },
    "github": {
        "text": "GitHub",
        "url_pattern": "https://github.com/%(username)s",
        "name": "GitHub",
        "hint": "Enter your GitHub username",
    },
}


@dataclass(frozen=True)
class StateRequest:
    user: User
    base_url: str
    client_gravatar: bool
    include_subscribers: bool
    user_avatar_url_field_optional: bool = False
    # Clients that read `user_settings` get no top-level copies of the settings.
    user_settings_object: bool = False
    slim_presence: bool = False
    max_file_upload_size_mib: int = 25


def realm_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    realm = load_realm(conn, req.user.realm_id)
    state: dict[str, Any] = {
        f"realm_{name}": (bool(value) if name in _BOOLEAN_COLUMNS and value is not None else value)
        for name, value in realm.row.items()
        if name not in _NOT_SETTINGS
    }
    retention = realm.setting("message_retention_days")
    state["realm_message_retention_days"] = -1 if retention is None else retention
    for name in ("notifications_stream_id", "signup_notifications_stream_id"):
        # -1: none (Zulip's convention for these two).
        stream_id = realm.setting(name)
        state[f"realm_{name}"] = -1 if stream_id is None else stream_id
    icon_url = f"{req.base_url}{REALM_IMAGE_PATH}"
    state.update(
        {
            "realm_name": realm.name,
            "realm_description": realm.setting("description"),
            "realm_uri": req.base_url,
            "realm_bot_domain": urlsplit(req.base_url).hostname or "",
            "realm_date_created": int(realm.setting("date_created")),
            "realm_icon_url": icon_url,
            "realm_icon_source": "G",
            "max_icon_file_size_mib": MAX_IMAGE_FILE_SIZE_MIB,
            "realm_logo_url": icon_url,
            "realm_logo_source": "D",
            "realm_night_logo_url": icon_url,
            "realm_night_logo_source": "D",
            "max_logo_file_size_mib": MAX_IMAGE_FILE_SIZE_MIB,
            "max_avatar_file_size_mib": MAX_IMAGE_FILE_SIZE_MIB,
            # Password login is the one way in; nothing else is configured.
            "realm_authentication_methods": AUTHENTICATION_METHODS,
            "realm_email_auth_enabled": True,
            "realm_password_auth_enabled": True,
            "realm_available_video_chat_providers": VIDEO_CHAT_PROVIDERS,
            "realm_default_external_accounts": DEFAULT_EXTERNAL_ACCOUNTS,
            "realm_is_zephyr_mirror_realm": False,
            # No push bouncer and no mail transport are configured.
            "realm_push_notifications_enabled": False,
            "settings_send_digest_emails": False,
            "realm_upload_quota_mib": None,
            "realm_plan_type": PLAN_SELF_HOSTED,
            "zulip_plan_is_not_limited": True,
            "upgrade_text_for_wide_organization_logo": "",
            "jitsi_server_url": JITSI_SERVER_URL,
            "giphy_api_key": "",
            "giphy_rating_options": GIPHY_RATING_OPTIONS,
            "development_environment": False,
            "server_generation": SERVER_GENERATION,
            # The server refuses only an empty password.
            "password_min_length": 1,
            "password_min_guesses": 0,
            "max_message_length": MAX_MESSAGE_LENGTH,
            "max_topic_length": MAX_TOPIC_LENGTH,
            "max_stream_name_length": MAX_STREAM_NAME_LENGTH,
            "max_stream_description_length": MAX_STREAM_DESCRIPTION_LENGTH,
            "max_file_upload_size_mib": 0,
            "event_queue_longpoll_timeout_seconds": 90,
            "server_presence_ping_interval_seconds": PING_INTERVAL_SECONDS,
            "server_presence_offline_threshold_seconds": OFFLINE_THRESHOLD_SECONDS,
            "server_typing_started_expiry_period_milliseconds": 45000,
            "server_typing_stopped_wait_period_milliseconds": 5000,
            "server_typing_started_wait_period_milliseconds": 10000,
            "server_inline_image_preview": True,
            "server_inline_url_embed_preview": False,
            "server_avatar_changes_disabled": False,
            "server_name_changes_disabled": False,
            "server_needs_upgrade": False,
            "server_web_public_streams_enabled": True,
            "server_emoji_data_url": f"{req.base_url}{EMOJI_DATA_PATH}",
        }
    )
    return state


def realm_user_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    users = user_queries.all_users(
        conn,
        req.user.realm_id,
        client_gravatar=req.client_gravatar,
        include_custom_profile_fields=True,
        viewer=user_queries.Viewer(req.user.id, req.user.role),
    )
    me = next(u for u in users if u["user_id"] == req.user.id)
    realm = load_realm(conn, req.user.realm_id)
    return {
        "realm_users": [u for u in users if u["is_active"]],
        "realm_non_active_users": [u for u in users if not u["is_active"]],
        "cross_realm_bots": cross_realm_bot_dicts(conn, req.client_gravatar),
        **_identity(req.user, realm, me),
    }


def _identity(user: User, realm: Realm, me: dict[str, Any]) -> dict[str, Any]:
    now = time.time()
    can_public = user.satisfies_policy(realm.setting("create_public_stream_policy"), realm, now)
    can_private = user.satisfies_policy(realm.setting("create_private_stream_policy"), realm, now)
    can_web_public = bool(realm.setting("enable_spectator_access")) and user.satisfies_policy(
        realm.setting("create_web_public_stream_policy"), realm, now
    )
    return {
        "user_id": user.id,
        "email": me["email"],
        "delivery_email": me["delivery_email"],
        "full_name": me["full_name"],
        "is_admin": user.is_admin,
        "is_owner": user.is_owner,
        "is_moderator": user.role == ROLE_MODERATOR,
        "is_guest": user.is_guest,
        "is_billing_admin": me["is_billing_admin"],
        "avatar_source": "G",
        "avatar_url": me["avatar_url"],
        "avatar_url_medium": me["avatar_url"],
        "can_create_streams": can_public or can_private,
        "can_create_public_streams": can_public,
        "can_create_private_streams": can_private,
        "can_create_web_public_streams": can_web_public,
        "can_subscribe_other_users": user.satisfies_policy(
            realm.setting("invite_to_stream_policy"), realm, now
        ),
        "can_invite_others_to_realm": user.is_admin,
    }


def subscription_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    subscribed = stream_queries.subscriptions_of(conn, req.user, req.include_subscribers)
    subscribed_ids = {s["stream_id"] for s in subscribed}
    SUB = schema.subscription.c
    former = set(
        conn.scalars(
            sa.select(SUB.stream_id).where(SUB.user_id == req.user.id, SUB.active.is_(False))
        )
    )
    unsubscribed: list[dict[str, Any]] = []
    never: list[dict[str, Any]] = []
    for stream in stream_queries.visible_streams(
        conn,
        req.user,
        include_public=True,
        include_web_public=True,
        include_subscribed=False,
        include_all_active=False,
    ):
        if stream["stream_id"] in subscribed_ids:
            continue
        if req.include_subscribers:
            stream["subscribers"] = stream_queries.subscriber_ids(conn, stream["stream_id"])
        (unsubscribed if stream["stream_id"] in former else never).append(stream)
    return {"subscriptions": subscribed, "unsubscribed": unsubscribed, "never_subscribed": never}


def streams_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    return {
        "streams": stream_queries.visible_streams(
            conn,
            req.user,
            include_public=True,
            include_web_public=True,
            include_subscribed=True,
            include_all_active=False,
        )
    }


def message_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    return {"max_message_id": user_queries.max_message_id(conn, req.user.id)}


def unread_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    """`unread_msgs` as Zulip shapes it: by DM partner, stream and topic, group DM, mentions.

    As in Zulip, at most MAX_UNREAD_MESSAGES, the newest; `old_unreads_missing` says when
    older ones were left out."""
    UM, M = schema.user_message.c, schema.message.c
    newest_first = conn.all(
        with_flag(
            sa.select(M.id, M.sender_id, M.recipient_id, M.stream_id, M.topic, UM.flags)
            .select_from(schema.user_message.join(schema.message, M.id == UM.message_id))
            .where(UM.user_id == req.user.id)
            .order_by(UM.message_id.desc())
            .limit(MAX_UNREAD_MESSAGES),
            flags.READ,
            is_set=False,
        )
    )
    rows = newest_first[::-1]
    personal = dict(
        (r["id"], r["type_id"])
        for r in conn.all(
            sa.select(schema.recipient)
            .where(schema.recipient.c.type == schema.RECIPIENT_PERSONAL)
            .where(
                schema.recipient.c.id.in_(
                    [r["recipient_id"] for r in rows if r["stream_id"] is None] or [-1]
                )
            )
        )
    )
    huddle_members: dict[int, list[int]] = defaultdict(list)
    huddle_recipients = [
        r["recipient_id"]
        for r in rows
        if r["stream_id"] is None and r["recipient_id"] not in personal
    ]
    if huddle_recipients:
        for r in conn.all(
            sa.select(schema.huddle.c.recipient_id, schema.huddle_member.c.user_id)
            .join(schema.huddle_member, schema.huddle_member.c.huddle_id == schema.huddle.c.id)
            .where(schema.huddle.c.recipient_id.in_(huddle_recipients))
        ):
            huddle_members[r["recipient_id"]].append(r["user_id"])
    pms: dict[int, list[int]] = defaultdict(list)
    streams: dict[tuple[int, str], list[int]] = defaultdict(list)
    huddles: dict[str, list[int]] = defaultdict(list)
    mentions: list[int] = []
    mention_bits = (
        flags.MENTIONED | flags.STREAM_WILDCARD_MENTIONED | flags.TOPIC_WILDCARD_MENTIONED
    )
    for r in rows:
        if r["stream_id"] is not None:
            streams[(r["stream_id"], r["topic"])].append(r["id"])
        elif r["recipient_id"] in personal:
            other = r["sender_id"] if r["sender_id"] != req.user.id else personal[r["recipient_id"]]
            pms[other].append(r["id"])
        else:
            key = ",".join(str(u) for u in sorted(huddle_members[r["recipient_id"]]))
            huddles[key].append(r["id"])
        if r["flags"] & mention_bits:
            mentions.append(r["id"])
    return {
        "unread_msgs": {
            "count": len(rows),
            "pms": [
                {"other_user_id": u, "sender_id": u, "unread_message_ids": ids}
                for u, ids in pms.items()
            ],
            "streams": [
                {"stream_id": s, "topic": t, "unread_message_ids": ids}
                for (s, t), ids in streams.items()
            ],
            "huddles": [
                {"user_ids_string": k, "unread_message_ids": ids} for k, ids in huddles.items()
            ],
            "mentions": mentions,
            "old_unreads_missing": len(rows) == MAX_UNREAD_MESSAGES,
        }
    }


def starred_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    UM = schema.user_message.c
    return {
        "starred_messages": conn.scalars(
            with_flag(
                sa.select(UM.message_id).where(UM.user_id == req.user.id).order_by(UM.message_id),
                flags.STARRED,
            )
        )
    }


def user_groups_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    return {"realm_user_groups": realm_groups(conn, req.user.realm_id)}


def playgrounds_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    return {"realm_playgrounds": playground_dicts(conn, req.user.realm_id)}


def linkifiers_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    return {"realm_linkifiers": linkifier_dicts(conn, req.user.realm_id)}


def default_streams_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    return {"realm_default_streams": default_stream_dicts(conn, req.user.realm_id)}


def user_settings_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    row = user_queries.user_row(conn, req.user.realm_id, req.user.id)
    return {"user_settings": user_settings(row)}


def display_settings_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    """The legacy top-level display settings, for clients without `user_settings_object`."""
    if req.user_settings_object:
        return {}
    settings = user_settings(user_queries.user_row(conn, req.user.realm_id, req.user.id))
    out = {name: settings[name] for name in LEGACY_DISPLAY_SETTINGS}
    out["emojiset_choices"] = settings["emojiset_choices"]
    return out


def notification_settings_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    """The legacy top-level notification settings, as above."""
    if req.user_settings_object:
        return {}
    settings = user_settings(user_queries.user_row(conn, req.user.realm_id, req.user.id))
    out = {name: settings[name] for name in LEGACY_NOTIFICATION_SETTINGS}
    out["available_notification_sounds"] = settings["available_notification_sounds"]
    return out


def realm_user_settings_defaults_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    realm = load_realm(conn, req.user.realm_id)
    return {"realm_user_settings_defaults": realm_user_defaults(realm.row)}


def presence_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    now = time.time()
    return {
        "presences": realm_presences(conn, req.user.realm_id, slim=req.slim_presence, now=now),
        "server_timestamp": now,
    }


def alert_words_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    return {"alert_words": user_alert_words(conn, req.user.id)}


def muted_users_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    return {"muted_users": muted_user_dicts(conn, req.user.id)}


def user_status_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    return {"user_status": realm_statuses(conn, req.user.realm_id)}


def default_stream_groups_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    # Default stream groups cannot be created on this server, so there are none.
    return {"realm_default_stream_groups": []}


def stop_words_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    return {"stop_words": list(STOP_WORDS)}


def realm_filters_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    # Since feature level 176 the legacy `realm_filters` is always empty: realm_linkifiers.
    return {"realm_filters": []}


def video_calls_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    # No Zoom integration is configured, so nobody has a token.
    return {"has_zoom_token": False}


CUSTOM_PROFILE_FIELD_TYPES = {
    "SHORT_TEXT": {"id": 1, "name": "Short text"},
    "LONG_TEXT": {"id": 2, "name": "Long text"},
    "SELECT": {"id": 3, "name": "List of options"},
    "DATE": {"id": 4, "name": "Date picker"},
    "URL": {"id": 5, "name": "Link"},
    "USER": {"id": 6, "name": "Person picker"},
    "EXTERNAL_ACCOUNT": {"id": 7, "name": "External account"},
    "PRONOUNS": {"id": 8, "name": "Pronouns"},
}


def custom_profile_fields_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    F = schema.custom_profile_field.c
    fields = conn.all(
        sa.select(schema.custom_profile_field)
        .where(F.realm_id == req.user.realm_id)
        .order_by(F.order)
    )
    return {
        "custom_profile_fields": [
            {
                "id": f["id"],
                "name": f["name"],
                "type": f["field_type"],
                "hint": f["hint"],
                "field_data": f["field_data"],
                "order": f["order"],
                "display_in_profile_summary": bool(f["display_in_profile_summary"]),
            }
            for f in fields
        ],
        "custom_profile_field_types": CUSTOM_PROFILE_FIELD_TYPES,
    }


def recent_private_conversations_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    """The user's DM conversations, newest first, with each one's latest message id.

    Read from the user's rows flagged `is_private` (an index of their own), as Zulip does, not
    from every message the user received."""
    UM, M, R = schema.user_message.c, schema.message.c, schema.recipient.c
    latest = conn.all(
        with_flag(
            sa.select(M.recipient_id, sa.func.max(M.id).label("max_id"))
            .select_from(schema.user_message.join(schema.message, M.id == UM.message_id))
            .where(UM.user_id == req.user.id, M.stream_id.is_(None))
            .group_by(M.recipient_id)
            .order_by(sa.desc("max_id"))
            .limit(RECENT_CONVERSATIONS_LIMIT),
            flags.IS_PRIVATE,
        )
    )
    if not latest:
        return {"recent_private_conversations": []}
    recipients = {
        r["id"]: r
        for r in conn.all(
            sa.select(R.id, R.type, R.type_id).where(
                R.id.in_(sorted({row["recipient_id"] for row in latest}))
            )
        )
    }
    personal_max_ids = [
        row["max_id"]
        for row in latest
        if recipients[row["recipient_id"]]["type"] == schema.RECIPIENT_PERSONAL
    ]
    senders = (
        dict(conn.tuples(sa.select(M.id, M.sender_id).where(M.id.in_(personal_max_ids))))
        if personal_max_ids
        else {}
    )
    huddle_ids = [
        r["type_id"] for r in recipients.values() if r["type"] != schema.RECIPIENT_PERSONAL
    ]
    members: dict[int, set[int]] = defaultdict(set)
    if huddle_ids:
        HM = schema.huddle_member.c
        for huddle_id, user_id in conn.tuples(
            sa.select(HM.huddle_id, HM.user_id).where(HM.huddle_id.in_(huddle_ids))
        ):
            members[huddle_id].add(user_id)
    out = []
    for row in latest:
        recipient = recipients[row["recipient_id"]]
        if recipient["type"] == schema.RECIPIENT_PERSONAL:
            ids = {recipient["type_id"], senders[row["max_id"]]}
        else:
            ids = members[recipient["type_id"]]
        out.append({"max_message_id": row["max_id"], "user_ids": sorted(ids - {req.user.id})})
    return {"recent_private_conversations": out}


def user_topic_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    return {"user_topics": user_topic_dicts(conn, req.user.id)}


def muted_topics_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    return {"muted_topics": muted_topic_tuples(conn, req.user.id)}


def drafts_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    row = user_queries.user_row(conn, req.user.realm_id, req.user.id)
    if not row["enable_drafts_synchronization"]:  # Zulip sends none then
        return {"drafts": []}
    return {"drafts": user_drafts(conn, req.user)}


def scheduled_messages_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    return {"scheduled_messages": user_scheduled_messages(conn, req.user)}


SECTIONS: dict[str, Callable[[Conn, StateRequest], dict[str, Any]]] = {
    "realm": realm_state,
    "realm_user": realm_user_state,
    "subscription": subscription_state,
    "stream": streams_state,
    "message": message_state,
    "update_message_flags": unread_state,
    "starred_messages": starred_state,
    "realm_user_groups": user_groups_state,
    "realm_playgrounds": playgrounds_state,
    "realm_linkifiers": linkifiers_state,
    "default_streams": default_streams_state,
    "user_settings": user_settings_state,
    "custom_profile_fields": custom_profile_fields_state,
    "recent_private_conversations": recent_private_conversations_state,
    "drafts": drafts_state,
    "scheduled_messages": scheduled_messages_state,
    "user_topic": user_topic_state,
    "muted_topics": muted_topics_state,
    "update_display_settings": display_settings_state,
    "update_global_notifications": notification_settings_state,
    "realm_user_settings_defaults": realm_user_settings_defaults_state,
    "presence": presence_state,
    "alert_words": alert_words_state,
    "muted_users": muted_users_state,
    "user_status": user_status_state,
    "default_stream_groups": default_stream_groups_state,
    "stop_words": stop_words_state,
    "realm_filters": realm_filters_state,
    "video_calls": video_calls_state,
}

SECTIONS.update(asset_sections(SECTIONS))


def initial_state(conn: Conn, req: StateRequest, fetch: list[str] | None) -> dict[str, Any]:
    """The sections asked for (all when `fetch` is None); unknown names are ignored, as in Zulip."""
    wanted = SECTIONS.keys() if fetch is None else [name for name in fetch if name in SECTIONS]
    if fetch is not None and "user_topic" in fetch:
        # The legacy muted_topics only for clients that did not ask for its replacement.
        wanted = [name for name in wanted if name != "muted_topics"]
    state: dict[str, Any] = {}
    for name in wanted:
        state.update(SECTIONS[name](conn, req))
    return state
