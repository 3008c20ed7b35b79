"""What Zulip's clients need beyond messaging: settings, reactions, presence, statuses.

- realm: the remaining organization settings of feature level 185 (announcement streams,
  invitation, bot and emoji policies, e-mail and preview settings, video chat, GIPHY rating, read
  receipts) and the defaults of new users' settings;
- user_profile: every user setting of feature level 185 as a column of its own;
- message.reaction_version, carried by the topic-window index, so that a cached message object
  (chat.queries.message_cache) changes with its reactions on every worker;
- the reaction, user_presence (one row per user), user_status, alert_word and muted_user tables;
- on SQLite, AUTOINCREMENT for the tables whose rows can be deleted or whose ids clients keep:
  without it SQLite hands out max(id) + 1, so deleting the newest message (draft, linkifier, …)
  gave its id to the next one, and clients cache by id. PostgreSQL sequences never go back.

Revision ID: 0008
Revises: 0007
"""

import re
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _bool(name: str, default: bool) -> sa.Column[bool]:
    return sa.Column(
        name, sa.Boolean(), nullable=False, server_default=sa.true() if default else sa.false()
    )


def _int(name: str, default: int) -> sa.Column[int]:
    return sa.Column(name, sa.Integer(), nullable=False, server_default=str(default))


REALM_COLUMNS: list[sa.Column[Any]] = [
    sa.Column("notifications_stream_id", sa.Integer(), nullable=True),
    sa.Column("signup_notifications_stream_id", sa.Integer(), nullable=True),
    _bool("invite_required", True),
    _int("invite_to_realm_policy", 1),
    _int("bot_creation_policy", 1),
    _int("add_custom_emoji_policy", 1),
    _bool("emails_restricted_to_domains", False),
    _bool("disallow_disposable_email_addresses", True),
    _bool("name_changes_disabled", False),
    _bool("email_changes_disabled", False),
    _bool("avatar_changes_disabled", False),
    _bool("inline_image_preview", True),
    _bool("inline_url_embed_preview", False),
    _bool("digest_emails_enabled", False),
    _int("digest_weekday", 1),
    _bool("send_welcome_emails", True),
    _bool("message_content_allowed_in_email_notifications", True),
    sa.Column("default_code_block_language", sa.String(40), nullable=True),
    _int("video_chat_provider", 1),
    _int("giphy_rating", 2),
    _bool("want_advertise_in_communities_directory", False),
    _bool("enable_read_receipts", False),
    _bool("presence_disabled", False),
    _int("org_type", 0),
    sa.Column("user_settings_defaults", sa.Text(), nullable=False, server_default="{}"),
]

USER_BOOLEANS = {
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
USER_INTEGERS = {
    "web_mark_read_on_scroll_policy": 1,
    "color_scheme": 1,
    "demote_inactive_streams": 1,
    "user_list_style": 2,
    "email_notifications_batching_period_seconds": 120,
    "desktop_icon_count_display": 1,
    "realm_name_in_email_notifications_policy": 1,
    "email_address_visibility": 1,
}
USER_STRINGS = {
    "default_view": "recent_topics",
    "emojiset": "google",
    "notification_sound": "zulip",
}

TOPIC_INDEX = "ix_message_recipient_topic_id"
TOPIC_INDEX_COLUMNS: list[str | sa.TextClause] = [
    "recipient_id",
    sa.text("lower(topic)"),
    "id",
    "sender_id",
    "stream_id",
    "topic",
    "date_sent",
    "last_edit_time",
]


# Tables whose ids must never come back (Zulip never reuses one).
NEVER_REUSED = (
    "message",
    "draft",
    "scheduled_message",
    "realm_filter",
    "user_group",
    "realm_playground",
    "stream",
    "user_profile",
)


def _sqlite_autoincrement(bind: sa.Connection, table: str) -> None:
    """Rebuild one table with `id INTEGER PRIMARY KEY AUTOINCREMENT` (SQLite's documented
    twelve-step table change): same columns and rows, its indexes and triggers recreated, the
    counter started at the highest id in use."""
    create = bind.execute(
        sa.text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = :t"), {"t": table}
    ).scalar_one()
    if "AUTOINCREMENT" in create:
        return
    extras = (
        bind.execute(
            sa.text(
                "SELECT sql FROM sqlite_master WHERE tbl_name = :t AND type IN ('index', 'trigger')"
                " AND sql IS NOT NULL ORDER BY type"
            ),
            {"t": table},
        )
        .scalars()
        .all()
    )
    new = re.sub(rf"^CREATE TABLE {table} \(", f"CREATE TABLE _new_{table} (", create)
    new = re.sub(
        r"\bid INTEGER NOT NULL,", "id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,", new, count=1
    )
    new = re.sub(rf"\s*CONSTRAINT pk_{table} PRIMARY KEY \(id\),", "", new)
    assert new != create and "PRIMARY KEY (id)" not in new, create
    bind.execute(sa.text(new))
    bind.execute(sa.text(f"INSERT INTO _new_{table} SELECT * FROM {table}"))
    bind.execute(sa.text(f"DROP TABLE {table}"))
    bind.execute(sa.text(f"ALTER TABLE _new_{table} RENAME TO {table}"))
    for statement in extras:
        bind.execute(sa.text(statement))
    highest = bind.execute(sa.text(f"SELECT coalesce(max(id), 0) FROM {table}")).scalar_one()
    bind.execute(sa.text("DELETE FROM sqlite_sequence WHERE name = :t"), {"t": table})
    bind.execute(
        sa.text("INSERT INTO sqlite_sequence (name, seq) VALUES (:t, :seq)"),
        {"t": table, "seq": int(highest)},
    )


def upgrade() -> None:
    # Plain ADD COLUMNs: a batch rebuild of these tables would trip over migration 0007's
    # triggers, and every new column has a constant default.
    for column in REALM_COLUMNS:
        op.add_column("realm", column._copy())
    for name, flag in USER_BOOLEANS.items():
        op.add_column("user_profile", _bool(name, flag))
    for name, number in USER_INTEGERS.items():
        op.add_column("user_profile", _int(name, number))
    for name, text in USER_STRINGS.items():
        op.add_column(
            "user_profile", sa.Column(name, sa.String(50), nullable=False, server_default=text)
        )
    op.add_column("message", _int("reaction_version", 0))
    op.drop_index(TOPIC_INDEX, table_name="message")
    op.create_index(TOPIC_INDEX, "message", [*TOPIC_INDEX_COLUMNS, "reaction_version"])

    op.create_table(
        "reaction",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("emoji_name", sa.String(60), nullable=False),
        sa.Column("emoji_code", sa.Text(), nullable=False),
        sa.Column("reaction_type", sa.String(30), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_profile.id"], name="fk_reaction_user_id_user_profile"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_reaction"),
        sa.UniqueConstraint(
            "message_id",
            "user_id",
            "reaction_type",
            "emoji_code",
            name="uq_reaction_message_id_user_id_reaction_type_emoji_code",
        ),
    )
    op.create_table(
        "user_presence",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("last_connected_time", sa.Float(), nullable=False),
        sa.Column("last_active_time", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_profile.id"], name="fk_user_presence_user_id_user_profile"
        ),
        sa.PrimaryKeyConstraint("user_id", name="pk_user_presence"),
    )
    op.create_index("ix_user_presence_realm_id", "user_presence", ["realm_id"])
    op.create_table(
        "user_status",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("status_text", sa.String(60), nullable=False, server_default=""),
        sa.Column("emoji_name", sa.String(60), nullable=False, server_default=""),
        sa.Column("emoji_code", sa.Text(), nullable=False, server_default=""),
        sa.Column("reaction_type", sa.String(30), nullable=False, server_default="unicode_emoji"),
        sa.Column("timestamp", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_profile.id"], name="fk_user_status_user_id_user_profile"
        ),
        sa.PrimaryKeyConstraint("user_id", name="pk_user_status"),
    )
    op.create_index("ix_user_status_realm_id", "user_status", ["realm_id"])
    op.create_table(
        "alert_word",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("word", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_profile.id"], name="fk_alert_word_user_id_user_profile"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_alert_word"),
    )
    op.create_index(
        "ix_alert_word_user_word", "alert_word", ["user_id", sa.text("lower(word)")], unique=True
    )
    op.create_index("ix_alert_word_realm_id", "alert_word", ["realm_id"])
    op.create_table(
        "muted_user",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("muted_user_id", sa.Integer(), nullable=False),
        sa.Column("date_muted", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_profile.id"], name="fk_muted_user_user_id_user_profile"
        ),
        sa.ForeignKeyConstraint(
            ["muted_user_id"], ["user_profile.id"], name="fk_muted_user_muted_user_id_user_profile"
        ),
        sa.PrimaryKeyConstraint("user_id", "muted_user_id", name="pk_muted_user"),
    )
    op.create_index("ix_muted_user_muted_user_id", "muted_user", ["muted_user_id"])

    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        for table in NEVER_REUSED:
            _sqlite_autoincrement(bind, table)


def downgrade() -> None:
    for table in ("muted_user", "alert_word", "user_status", "user_presence", "reaction"):
        op.drop_table(table)
    op.drop_index(TOPIC_INDEX, table_name="message")
    op.create_index(TOPIC_INDEX, "message", TOPIC_INDEX_COLUMNS)
    op.drop_column("message", "reaction_version")
    for name in (*USER_BOOLEANS, *USER_INTEGERS, *USER_STRINGS):
        op.drop_column("user_profile", name)
    for column in REALM_COLUMNS:
        op.drop_column("realm", column.name)
