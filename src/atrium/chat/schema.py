"""The chat tables: the single description of the schema, its migrations and its queries.

Shapes follow Zulip's models where clients can tell (ids, role codes, flag bits), and are simpler
where they cannot. Timestamps are UTC seconds (floats where Zulip shows sub-second precision).
Booleans are real booleans: PostgreSQL is strict about them.
"""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.mail.outbox import outbox_table

metadata = sa.MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
    }
)

realm = sa.Table(
    "realm",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("string_id", sa.String(40), nullable=False, unique=True),
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("description", sa.Text, nullable=False, server_default=""),
    sa.Column("date_created", sa.Float, nullable=False),
    sa.Column("deactivated", sa.Boolean, nullable=False, server_default=sa.false()),
    # Message editing and moving (Zulip's defaults; see api-facts §6).
    sa.Column("allow_message_editing", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column(
        "message_content_edit_limit_seconds", sa.Integer, nullable=True, server_default="600"
    ),
    sa.Column("edit_topic_policy", sa.Integer, nullable=False, server_default="5"),
    sa.Column(
        "move_messages_within_stream_limit_seconds",
        sa.Integer,
        nullable=True,
        server_default="604800",
    ),
    sa.Column(
        "move_messages_between_streams_policy", sa.Integer, nullable=False, server_default="1"
    ),
    sa.Column(
        "move_messages_between_streams_limit_seconds",
        sa.Integer,
        nullable=True,
        server_default="604800",
    ),
    sa.Column("delete_own_message_policy", sa.Integer, nullable=False, server_default="5"),
    sa.Column(
        "message_content_delete_limit_seconds", sa.Integer, nullable=True, server_default="600"
    ),
    sa.Column("allow_edit_history", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("mandatory_topics", sa.Boolean, nullable=False, server_default=sa.false()),
    # Who may do what.
    sa.Column("wildcard_mention_policy", sa.Integer, nullable=False, server_default="5"),
    sa.Column("private_message_policy", sa.Integer, nullable=False, server_default="1"),
    sa.Column("create_public_stream_policy", sa.Integer, nullable=False, server_default="1"),
    sa.Column("create_private_stream_policy", sa.Integer, nullable=False, server_default="1"),
    sa.Column("create_web_public_stream_policy", sa.Integer, nullable=False, server_default="7"),
    sa.Column("invite_to_stream_policy", sa.Integer, nullable=False, server_default="1"),
    sa.Column("user_group_edit_policy", sa.Integer, nullable=False, server_default="1"),
    sa.Column("waiting_period_threshold", sa.Integer, nullable=False, server_default="0"),
    sa.Column("enable_spectator_access", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("message_retention_days", sa.Integer, nullable=True),
    sa.Column("email_address_visibility", sa.Integer, nullable=False, server_default="1"),
    sa.Column("default_language", sa.String(50), nullable=False, server_default="en"),
    # Announcement streams (NULL: none), as Zulip's notifications_stream and
    # signup_notifications_stream.
    sa.Column("notifications_stream_id", sa.Integer, nullable=True),
    sa.Column("signup_notifications_stream_id", sa.Integer, nullable=True),
    # Who may invite, create bots and add custom emoji; sign-up and e-mail rules.
    sa.Column("invite_required", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("invite_to_realm_policy", sa.Integer, nullable=False, server_default="1"),
    sa.Column("bot_creation_policy", sa.Integer, nullable=False, server_default="1"),
    sa.Column("add_custom_emoji_policy", sa.Integer, nullable=False, server_default="1"),
    sa.Column(
        "emails_restricted_to_domains", sa.Boolean, nullable=False, server_default=sa.false()
    ),
    sa.Column(
        "disallow_disposable_email_addresses", sa.Boolean, nullable=False, server_default=sa.true()
    ),
    sa.Column("name_changes_disabled", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("email_changes_disabled", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("avatar_changes_disabled", sa.Boolean, nullable=False, server_default=sa.false()),
    # Message display and notifications.
    sa.Column("inline_image_preview", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("inline_url_embed_preview", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("digest_emails_enabled", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("digest_weekday", sa.Integer, nullable=False, server_default="1"),
    sa.Column("send_welcome_emails", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column(
        "message_content_allowed_in_email_notifications",
        sa.Boolean,
        nullable=False,
        server_default=sa.true(),
    ),
    sa.Column("default_code_block_language", sa.String(40), nullable=True),
    sa.Column("video_chat_provider", sa.Integer, nullable=False, server_default="1"),
    sa.Column("giphy_rating", sa.Integer, nullable=False, server_default="2"),
    sa.Column(
        "want_advertise_in_communities_directory",
        sa.Boolean,
        nullable=False,
        server_default=sa.false(),
    ),
    sa.Column("enable_read_receipts", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("presence_disabled", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("org_type", sa.Integer, nullable=False, server_default="0"),
    # The defaults of new users' settings, JSON {name: value} over the catalogue's defaults.
    sa.Column("user_settings_defaults", sa.Text, nullable=False, server_default="{}"),
    # Bumped by triggers (migration 0007) whenever what a message object shows from outside the
    # message changes: a user's email, name or avatar, or a linkifier. See message_cache.
    sa.Column("message_display_version", sa.BigInteger, nullable=False, server_default="0"),
)

# Zulip's Recipient: what a message is addressed to (a user, a stream, or a group DM "huddle").
RECIPIENT_PERSONAL = 1
RECIPIENT_STREAM = 2
RECIPIENT_HUDDLE = 3

recipient = sa.Table(
    "recipient",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("type", sa.SmallInteger, nullable=False),
    sa.Column("type_id", sa.Integer, nullable=False),
    sa.UniqueConstraint("type", "type_id"),
)

user = sa.Table(
    "user_profile",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("realm_id", sa.ForeignKey("realm.id"), nullable=False),
    sa.Column("email", sa.String(254), nullable=False),
    sa.Column("delivery_email", sa.String(254), nullable=False),
    sa.Column("full_name", sa.String(100), nullable=False),
    sa.Column("password_hash", sa.Text, nullable=True),
    sa.Column("api_key", sa.String(32), nullable=False, unique=True),
    sa.Column("role", sa.SmallInteger, nullable=False, server_default="400"),
    sa.Column("is_active", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("is_billing_admin", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("is_bot", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("bot_type", sa.SmallInteger, nullable=True),
    sa.Column("bot_owner_id", sa.ForeignKey("user_profile.id"), nullable=True),
    sa.Column("timezone", sa.String(40), nullable=False, server_default=""),
    # "G": gravatar (avatar_url may be null with client_gravatar), "U": uploaded.
    sa.Column("avatar_source", sa.String(1), nullable=False, server_default="G"),
    sa.Column("avatar_version", sa.Integer, nullable=False, server_default="1"),
    sa.Column("date_joined", sa.Float, nullable=False),
    sa.Column("recipient_id", sa.ForeignKey("recipient.id"), nullable=True),
    sa.Column(
        "enable_drafts_synchronization", sa.Boolean, nullable=False, server_default=sa.true()
    ),
    # Ids are never reused (migration 0008).
    sqlite_autoincrement=True,
)
sa.Index("ix_user_profile_realm_email", user.c.realm_id, sa.func.lower(user.c.email), unique=True)
sa.Index("ix_user_profile_bot_owner_id", user.c.bot_owner_id)

custom_profile_field = sa.Table(
    "custom_profile_field",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("realm_id", sa.ForeignKey("realm.id"), nullable=False),
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("hint", sa.String(80), nullable=False, server_default=""),
    sa.Column("field_type", sa.SmallInteger, nullable=False),
    sa.Column("field_data", sa.Text, nullable=False, server_default=""),
    sa.Column("order", sa.Integer, nullable=False),
    sa.Column("display_in_profile_summary", sa.Boolean, nullable=False, server_default=sa.false()),
)

custom_profile_field_value = sa.Table(
    "custom_profile_field_value",
    metadata,
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), primary_key=True),
    sa.Column("field_id", sa.ForeignKey("custom_profile_field.id"), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
    sa.Column("rendered_value", sa.Text, nullable=True),
)

stream = sa.Table(
    "stream",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("realm_id", sa.ForeignKey("realm.id"), nullable=False),
    sa.Column("name", sa.String(60), nullable=False),
    sa.Column("description", sa.String(1024), nullable=False, server_default=""),
    sa.Column("rendered_description", sa.Text, nullable=False, server_default=""),
    sa.Column("date_created", sa.Float, nullable=False),
    sa.Column("deactivated", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("invite_only", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("is_web_public", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column(
        "history_public_to_subscribers", sa.Boolean, nullable=False, server_default=sa.true()
    ),
    sa.Column("stream_post_policy", sa.SmallInteger, nullable=False, server_default="1"),
    # NULL: the realm's setting; -1: forever.
    sa.Column("message_retention_days", sa.Integer, nullable=True),
    sa.Column("can_remove_subscribers_group_id", sa.Integer, nullable=False),
    sa.Column("first_message_id", sa.Integer, nullable=True),
    sa.Column("recipient_id", sa.ForeignKey("recipient.id"), nullable=True),
    # Ids are never reused (migration 0008).
    sqlite_autoincrement=True,
)
sa.Index("ix_stream_realm_name", stream.c.realm_id, sa.func.lower(stream.c.name), unique=True)

subscription = sa.Table(
    "subscription",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), nullable=False),
    sa.Column("stream_id", sa.ForeignKey("stream.id"), nullable=False),
    sa.Column("active", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("color", sa.String(10), nullable=False, server_default="#c2c2c2"),
    sa.Column("is_muted", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("pin_to_top", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("desktop_notifications", sa.Boolean, nullable=True),
    sa.Column("audible_notifications", sa.Boolean, nullable=True),
    sa.Column("push_notifications", sa.Boolean, nullable=True),
    sa.Column("email_notifications", sa.Boolean, nullable=True),
    sa.Column("wildcard_mentions_notify", sa.Boolean, nullable=True),
    sa.UniqueConstraint("user_id", "stream_id"),
)
# Covering for subscriber lists (GET /users/me/subscriptions?include_subscribers=true).
sa.Index(
    "ix_subscription_stream_active_user",
    subscription.c.stream_id,
    subscription.c.active,
    subscription.c.user_id,
)

# Group direct messages: one huddle per distinct set of participants.
huddle = sa.Table(
    "huddle",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("huddle_hash", sa.String(40), nullable=False, unique=True),
    sa.Column("recipient_id", sa.ForeignKey("recipient.id"), nullable=True),
)

huddle_member = sa.Table(
    "huddle_member",
    metadata,
    sa.Column("huddle_id", sa.ForeignKey("huddle.id"), primary_key=True),
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), primary_key=True),
)

message = sa.Table(
    "message",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("realm_id", sa.ForeignKey("realm.id"), nullable=False),
    sa.Column("sender_id", sa.ForeignKey("user_profile.id"), nullable=False),
    sa.Column("recipient_id", sa.ForeignKey("recipient.id"), nullable=False),
    # Denormalised from the recipient so that a topic narrow is one index range.
    sa.Column("stream_id", sa.Integer, nullable=True),
    sa.Column("topic", sa.String(60), nullable=False, server_default=""),
    sa.Column("content", sa.Text, nullable=False),
    sa.Column("rendered_content", sa.Text, nullable=True),
    sa.Column("rendered_content_version", sa.Integer, nullable=True),
    sa.Column("date_sent", sa.Float, nullable=False),
    sa.Column("sending_client", sa.String(30), nullable=False, server_default="Internal"),
    sa.Column("last_edit_time", sa.Float, nullable=True),
    # JSON list of edits, newest first, as Zulip keeps it.
    sa.Column("edit_history", sa.Text, nullable=True),
    sa.Column("is_me_message", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("has_attachment", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("has_image", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("has_link", sa.Boolean, nullable=False, server_default=sa.false()),
    # Bumped with every reaction added or removed: part of the message's cache version.
    sa.Column("reaction_version", sa.Integer, nullable=False, server_default="0"),
    # Ids are never reused (migration 0008).
    sqlite_autoincrement=True,
)
sa.Index(
    "ix_message_stream_topic_id",
    message.c.stream_id,
    sa.func.lower(message.c.topic),
    message.c.id,
)
sa.Index("ix_message_recipient_id", message.c.recipient_id, message.c.id)
# Carries what a topic window reads (conversation_window), so that the index alone answers it.
sa.Index(
    "ix_message_recipient_topic_id",
    message.c.recipient_id,
    sa.func.lower(message.c.topic),
    message.c.id,
    message.c.sender_id,
    message.c.stream_id,
    message.c.topic,
    message.c.date_sent,
    message.c.last_edit_time,
    message.c.reaction_version,
)
sa.Index("ix_message_sender_id", message.c.sender_id, message.c.id)

# One row per message a user received: personal flags as a bitfield (bit order in chat/flags.py).
user_message = sa.Table(
    "user_message",
    metadata,
    sa.Column("user_id", sa.Integer, primary_key=True),
    sa.Column("message_id", sa.Integer, primary_key=True),
    sa.Column("flags", sa.BigInteger, nullable=False, server_default="0"),
    sqlite_with_rowid=False,
)
sa.Index("ix_user_message_message_id", user_message.c.message_id)
# Partial indexes of the rows with a flag (migration 0012): a user's unread, starred and DM rows
# without a scan of every row the user has, as Zulip's zerver_usermessage_*_message_id.
for _name, _where in (
    ("ix_user_message_unread", "(flags & 1) = 0"),
    ("ix_user_message_starred", "(flags & 2) != 0"),
    ("ix_user_message_is_private", "(flags & 2048) != 0"),
):
    sa.Index(
        _name,
        user_message.c.user_id,
        user_message.c.message_id,
        sqlite_where=sa.text(_where),
        postgresql_where=sa.text(_where),
    )

user_group = sa.Table(
    "user_group",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("realm_id", sa.ForeignKey("realm.id"), nullable=False),
    sa.Column("name", sa.String(100), nullable=False),
    sa.Column("description", sa.Text, nullable=False, server_default=""),
    sa.Column("is_system_group", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("can_mention_group_id", sa.Integer, nullable=True),
    sa.UniqueConstraint("realm_id", "name"),
    # Ids are never reused (migration 0008).
    sqlite_autoincrement=True,
)

user_group_member = sa.Table(
    "user_group_member",
    metadata,
    sa.Column("user_group_id", sa.ForeignKey("user_group.id"), primary_key=True),
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), primary_key=True),
)
sa.Index("ix_user_group_member_user_id", user_group_member.c.user_id)

user_group_subgroup = sa.Table(
    "user_group_subgroup",
    metadata,
    sa.Column("supergroup_id", sa.ForeignKey("user_group.id"), primary_key=True),
    sa.Column("subgroup_id", sa.ForeignKey("user_group.id"), primary_key=True),
)

# --- messaging (drafts, scheduled messages) ---------------------------------------------
# The full-text index over messages is dialect-specific (an FTS5 virtual table on SQLite, a
# tsvector table on PostgreSQL), so it lives in chat/search.py and in migration 0002, not here.

DRAFT_TYPES = ("", "stream", "private")

draft = sa.Table(
    "draft",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), nullable=False),
    # "" (unaddressed), "stream" or "private".
    sa.Column("type", sa.String(10), nullable=False, server_default=""),
    # JSON list of ids: [stream_id] for a stream draft, user ids for a private one.
    sa.Column("to_ids", sa.Text, nullable=False, server_default="[]"),
    sa.Column("topic", sa.String(60), nullable=False, server_default=""),
    sa.Column("content", sa.Text, nullable=False),
    sa.Column("last_edit_time", sa.Float, nullable=False),
    # Ids are never reused (migration 0008).
    sqlite_autoincrement=True,
)
sa.Index("ix_draft_user_id_last_edit_time", draft.c.user_id, draft.c.last_edit_time)

scheduled_message = sa.Table(
    "scheduled_message",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("realm_id", sa.ForeignKey("realm.id"), nullable=False),
    sa.Column("sender_id", sa.ForeignKey("user_profile.id"), nullable=False),
    # "stream" or "private".
    sa.Column("type", sa.String(10), nullable=False),
    sa.Column("stream_id", sa.Integer, nullable=True),
    # JSON list of the recipient user ids of a direct message.
    sa.Column("to_user_ids", sa.Text, nullable=False, server_default="[]"),
    sa.Column("topic", sa.String(60), nullable=False, server_default=""),
    sa.Column("content", sa.Text, nullable=False),
    sa.Column("rendered_content", sa.Text, nullable=False),
    sa.Column("sending_client", sa.String(30), nullable=False, server_default="Internal"),
    sa.Column("scheduled_timestamp", sa.Float, nullable=False),
    sa.Column("delivered", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("failed", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("failure_message", sa.Text, nullable=True),
    sa.Column("delivered_message_id", sa.Integer, nullable=True),
    # Ids are never reused (migration 0008).
    sqlite_autoincrement=True,
)
sa.Index("ix_scheduled_message_sender_id", scheduled_message.c.sender_id)
# The delivery task's query: undelivered, not failed, by time.
sa.Index(
    "ix_scheduled_message_due",
    scheduled_message.c.delivered,
    scheduled_message.c.failed,
    scheduled_message.c.scheduled_timestamp,
)

# --- administration (playgrounds, linkifiers, default streams, user settings, mail) ---

# Per-user settings (PATCH /settings): the first two added to user_profile by migration 0003, the
# rest by 0008. Their kinds, choices and validation are in actions/user_settings.py.
_BOOL_SETTINGS = {
    "translate_emoticons": False,
    "twenty_four_hour_time": False,
    "dense_mode": True,
    "starred_message_counts": True,
    "fluid_layout_width": False,
    "high_contrast_mode": False,
    "display_emoji_reaction_users": True,
    "escape_navigates_to_default_view": True,
    "left_side_userlist": False,
    "enter_sends": False,
    "enable_stream_desktop_notifications": False,
    "enable_stream_email_notifications": False,
    "enable_stream_push_notifications": False,
    "enable_stream_audible_notifications": False,
    "enable_desktop_notifications": True,
    "enable_sounds": True,
    "enable_offline_email_notifications": True,
    "enable_offline_push_notifications": True,
    "enable_online_push_notifications": True,
    "enable_digest_emails": True,
    "enable_marketing_emails": True,
    "enable_login_emails": True,
    "message_content_in_email_notifications": True,
    "pm_content_in_desktop_notifications": True,
    "wildcard_mentions_notify": True,
    "presence_enabled": True,
    "send_private_typing_notifications": True,
    "send_stream_typing_notifications": True,
    "send_read_receipts": True,
}
_INT_SETTINGS = {
    "web_mark_read_on_scroll_policy": 1,
    "color_scheme": 1,
    "demote_inactive_streams": 1,
    "user_list_style": 2,
    "email_notifications_batching_period_seconds": 120,
    "desktop_icon_count_display": 1,
    "realm_name_in_email_notifications_policy": 1,
    "email_address_visibility": 1,
}
_STRING_SETTINGS = {
    "default_language": "en",
    "default_view": "recent_topics",
    "emojiset": "google",
    "notification_sound": "zulip",
}
for _name, _flag in _BOOL_SETTINGS.items():
    user.append_column(
        sa.Column(
            _name, sa.Boolean, nullable=False, server_default=sa.true() if _flag else sa.false()
        )
    )
for _name, _number in _INT_SETTINGS.items():
    user.append_column(sa.Column(_name, sa.Integer, nullable=False, server_default=str(_number)))
for _name, _text in _STRING_SETTINGS.items():
    user.append_column(sa.Column(_name, sa.String(50), nullable=False, server_default=_text))
# name -> default, for every setting stored as a column (timezone and
# enable_drafts_synchronization are user_profile columns of their own above).
USER_SETTING_DEFAULTS: dict[str, bool | int | str] = {
    **_BOOL_SETTINGS,
    **_INT_SETTINGS,
    **_STRING_SETTINGS,
}

realm_playground = sa.Table(
    "realm_playground",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("realm_id", sa.ForeignKey("realm.id"), nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("pygments_language", sa.String(40), nullable=False),
    # Feature level 185 stores a URL prefix (a template with `{code}` came at 196).
    sa.Column("url_prefix", sa.Text, nullable=False),
    sa.UniqueConstraint("realm_id", "pygments_language", "name"),
    # Ids are never reused (migration 0008).
    sqlite_autoincrement=True,
)

# Zulip's RealmFilter: a linkifier. Rendering applies them in `order`, then id.
realm_filter = sa.Table(
    "realm_filter",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("realm_id", sa.ForeignKey("realm.id"), nullable=False),
    sa.Column("pattern", sa.Text, nullable=False),
    sa.Column("url_template", sa.Text, nullable=False),
    sa.Column("order", sa.Integer, nullable=False, server_default="0"),
    sa.UniqueConstraint("realm_id", "pattern"),
    # Ids are never reused (migration 0008).
    sqlite_autoincrement=True,
)

default_stream = sa.Table(
    "default_stream",
    metadata,
    sa.Column("realm_id", sa.ForeignKey("realm.id"), primary_key=True),
    sa.Column("stream_id", sa.ForeignKey("stream.id"), primary_key=True),
)

# --- Files, images, emoji, bots, invitations, domains, devices -----------------------------------
# Uploaded bytes live in the data directory's content-addressed store (core/blobs.py); these rows
# keep only the SHA-256 that names them.

attachment = sa.Table(
    "attachment",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("realm_id", sa.ForeignKey("realm.id"), nullable=False),
    sa.Column("owner_id", sa.ForeignKey("user_profile.id"), nullable=False),
    sa.Column("file_name", sa.Text, nullable=False),
    # "<realm_id>/<2 hex>/<random>/<sanitized name>": the URL path after /user_uploads/.
    sa.Column("path_id", sa.Text, nullable=False, unique=True),
    sa.Column("sha256", sa.String(64), nullable=False),
    sa.Column("content_type", sa.String(255), nullable=False),
    sa.Column("size", sa.BigInteger, nullable=False),
    sa.Column("create_time", sa.Float, nullable=False),
)
sa.Index("ix_attachment_owner_id", attachment.c.owner_id)
sa.Index("ix_attachment_sha256", attachment.c.sha256)

# Which messages link which upload (Zulip's Attachment.messages).
attachment_message = sa.Table(
    "attachment_message",
    metadata,
    sa.Column("attachment_id", sa.ForeignKey("attachment.id"), primary_key=True),
    sa.Column("message_id", sa.Integer, primary_key=True),
)
sa.Index("ix_attachment_message_message_id", attachment_message.c.message_id)

# An uploaded avatar (user_profile.avatar_source "U" points here).
user_avatar = sa.Table(
    "user_avatar",
    metadata,
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), primary_key=True),
    sa.Column("sha256", sa.String(64), nullable=False),
    sa.Column("content_type", sa.String(255), nullable=False),
)

# The realm's icon, day logo and night logo; no row means the default image.
realm_image = sa.Table(
    "realm_image",
    metadata,
    sa.Column("realm_id", sa.ForeignKey("realm.id"), primary_key=True),
    sa.Column("kind", sa.String(12), primary_key=True),
    sa.Column("sha256", sa.String(64), nullable=True),
    sa.Column("content_type", sa.String(255), nullable=True),
    sa.Column("version", sa.Integer, nullable=False, server_default="1"),
)

realm_emoji = sa.Table(
    "realm_emoji",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("realm_id", sa.ForeignKey("realm.id"), nullable=False),
    sa.Column("name", sa.String(60), nullable=False),
    sa.Column("author_id", sa.ForeignKey("user_profile.id"), nullable=True),
    sa.Column("sha256", sa.String(64), nullable=False),
    sa.Column("content_type", sa.String(255), nullable=False),
    sa.Column("file_ext", sa.String(10), nullable=False),
    sa.Column("deactivated", sa.Boolean, nullable=False, server_default=sa.false()),
)
sa.Index("ix_realm_emoji_realm_id_name", realm_emoji.c.realm_id, realm_emoji.c.name)

# A bot's defaults (Zulip keeps them on the UserProfile; a side table keeps users narrow).
bot_settings = sa.Table(
    "bot_settings",
    metadata,
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), primary_key=True),
    sa.Column("default_sending_stream_id", sa.Integer, nullable=True),
    sa.Column("default_events_register_stream_id", sa.Integer, nullable=True),
    sa.Column("default_all_public_streams", sa.Boolean, nullable=False, server_default=sa.false()),
)

# An outgoing-webhook bot's service (Zulip's Service): where messages that mention or message the
# bot are POSTed, in which format (1: Zulip's generic, 2: Slack's), and the token sent with them.
bot_service = sa.Table(
    "bot_service",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), nullable=False, index=True),
    sa.Column("base_url", sa.String(2000), nullable=False),
    sa.Column("interface", sa.SmallInteger, nullable=False),
    sa.Column("token", sa.String(32), nullable=False),
)

invitation = sa.Table(
    "invitation",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("realm_id", sa.ForeignKey("realm.id"), nullable=False),
    sa.Column("invited_by_id", sa.ForeignKey("user_profile.id"), nullable=False),
    # NULL for a reusable (multiuse) link.
    sa.Column("email", sa.String(254), nullable=True),
    sa.Column("invite_as", sa.SmallInteger, nullable=False),
    sa.Column("stream_ids", sa.Text, nullable=False, server_default="[]"),
    sa.Column("token", sa.String(64), nullable=False, unique=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("expires", sa.Float, nullable=True),
    # 0 pending, 1 used (an email invitation), 2 revoked.
    sa.Column("status", sa.SmallInteger, nullable=False, server_default="0"),
)
sa.Index("ix_invitation_realm_id", invitation.c.realm_id)

realm_domain = sa.Table(
    "realm_domain",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("realm_id", sa.ForeignKey("realm.id"), nullable=False),
    sa.Column("domain", sa.String(80), nullable=False),
    sa.Column("allow_subdomains", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.UniqueConstraint("realm_id", "domain"),
)

# Mobile push registrations: stored for a push bouncer, which this server does not configure.
PUSH_APNS = 1
PUSH_GCM = 2

push_device_token = sa.Table(
    "push_device_token",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), nullable=False),
    sa.Column("kind", sa.SmallInteger, nullable=False),
    sa.Column("token", sa.String(4096), nullable=False),
    sa.Column("ios_app_id", sa.Text, nullable=True),
    sa.Column("last_updated", sa.Float, nullable=False),
    sa.UniqueConstraint("user_id", "kind", "token"),
)

user_hotspot = sa.Table(
    "user_hotspot",
    metadata,
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), primary_key=True),
    sa.Column("hotspot", sa.String(30), primary_key=True),
    sa.Column("timestamp", sa.Float, nullable=False),
)

# Mail the server owes a user (the deactivation notice), kept until a transport delivers it.
outgoing_email = sa.Table(
    "outgoing_email",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("realm_id", sa.ForeignKey("realm.id"), nullable=False),
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), nullable=False),
    sa.Column("to_address", sa.String(254), nullable=False),
    sa.Column("template", sa.String(60), nullable=False),
    sa.Column("subject", sa.Text, nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("sent", sa.Float, nullable=True),
)

# Zulip's UserTopic: a user's visibility policy for one topic (muted, unmuted, followed). The
# topic matches case-insensitively, as everywhere; "inherit" (0) is the absence of a row.
user_topic = sa.Table(
    "user_topic",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), nullable=False),
    sa.Column("stream_id", sa.ForeignKey("stream.id"), nullable=False),
    sa.Column("recipient_id", sa.ForeignKey("recipient.id"), nullable=False),
    sa.Column("topic_name", sa.String(60), nullable=False),
    sa.Column("last_updated", sa.Float, nullable=False),
    sa.Column("visibility_policy", sa.Integer, nullable=False),
)
sa.Index(
    "ix_user_topic_user_id_stream_id_topic",
    user_topic.c.user_id,
    user_topic.c.stream_id,
    sa.func.lower(user_topic.c.topic_name),
    unique=True,
)


# --- Reactions, presence, user status, alert words, muted users ----------------------------------

# Zulip's reaction types.
REACTION_UNICODE = "unicode_emoji"
REACTION_REALM = "realm_emoji"
REACTION_ZULIP_EXTRA = "zulip_extra_emoji"

reaction = sa.Table(
    "reaction",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("message_id", sa.Integer, nullable=False),
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), nullable=False),
    sa.Column("emoji_name", sa.String(60), nullable=False),
    sa.Column("emoji_code", sa.Text, nullable=False),
    sa.Column("reaction_type", sa.String(30), nullable=False),
    sa.UniqueConstraint("message_id", "user_id", "reaction_type", "emoji_code"),
)

# One row per user, overwritten by heartbeats (Zulip 7's UserPresence): a heartbeat is at most
# one small UPDATE, and none while the stored times are fresh enough.
user_presence = sa.Table(
    "user_presence",
    metadata,
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), primary_key=True),
    sa.Column("realm_id", sa.Integer, nullable=False),
    sa.Column("last_connected_time", sa.Float, nullable=False),
    sa.Column("last_active_time", sa.Float, nullable=True),
)
sa.Index("ix_user_presence_realm_id", user_presence.c.realm_id)

user_status = sa.Table(
    "user_status",
    metadata,
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), primary_key=True),
    sa.Column("realm_id", sa.Integer, nullable=False),
    sa.Column("status_text", sa.String(60), nullable=False, server_default=""),
    sa.Column("emoji_name", sa.String(60), nullable=False, server_default=""),
    sa.Column("emoji_code", sa.Text, nullable=False, server_default=""),
    sa.Column("reaction_type", sa.String(30), nullable=False, server_default=REACTION_UNICODE),
    sa.Column("timestamp", sa.Float, nullable=False),
)
sa.Index("ix_user_status_realm_id", user_status.c.realm_id)

alert_word = sa.Table(
    "alert_word",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), nullable=False),
    sa.Column("realm_id", sa.Integer, nullable=False),
    sa.Column("word", sa.Text, nullable=False),
)
sa.Index(
    "ix_alert_word_user_word", alert_word.c.user_id, sa.func.lower(alert_word.c.word), unique=True
)
sa.Index("ix_alert_word_realm_id", alert_word.c.realm_id)

muted_user = sa.Table(
    "muted_user",
    metadata,
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), primary_key=True),
    sa.Column("muted_user_id", sa.ForeignKey("user_profile.id"), primary_key=True),
    sa.Column("date_muted", sa.Float, nullable=False),
)
sa.Index("ix_muted_user_muted_user_id", muted_user.c.muted_user_id)

# The mails this service has to send (core/mail/outbox.py).
mail_outbox = outbox_table(metadata)

# Missed-message mails to send once their batching period is over, unless the messages were read
# meanwhile (actions/missed_messages.py). `trigger` is Zulip's: private_message, mentioned,
# alert_word or stream_email_notify.
missed_message_email = sa.Table(
    "missed_message_email",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), nullable=False),
    sa.Column("message_id", sa.Integer, nullable=False),
    sa.Column("trigger", sa.String(32), nullable=False),
    sa.Column("due", sa.Float, nullable=False),
)
sa.Index("ix_missed_message_email_due", missed_message_email.c.due)
sa.Index("ix_missed_message_email_user", missed_message_email.c.user_id)

# When each user was last sent a digest mail (actions/digest.py).
digest_sent = sa.Table(
    "digest_sent",
    metadata,
    sa.Column("user_id", sa.ForeignKey("user_profile.id"), primary_key=True),
    sa.Column("sent", sa.Float, nullable=False),
)

# An organization brought in from a Zulip export: which archive it came from, so that running the
# same import again finds it done instead of refusing or duplicating it.
zulip_import = sa.Table(
    "zulip_import",
    metadata,
    sa.Column("realm_id", sa.ForeignKey("realm.id"), primary_key=True),
    sa.Column("archive_sha256", sa.String(64), nullable=False),
    sa.Column("imported_at", sa.Float, nullable=False),
    # JSON: what was carried over and what was not.
    sa.Column("report", sa.Text, nullable=False),
)
