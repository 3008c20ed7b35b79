"""chat schema: realms, users, streams, messages, groups

Revision ID: 0001
Revises:
Create Date: 2026-11-21 04:39:12.955898
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "realm",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("string_id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("description", sa.Text(), server_default="", nullable=False),
        sa.Column("date_created", sa.Float(), nullable=False),
        sa.Column("deactivated", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("allow_message_editing", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.Column(
            "message_content_edit_limit_seconds", sa.Integer(), server_default="600", nullable=True
        ),
        sa.Column("edit_topic_policy", sa.Integer(), server_default="5", nullable=False),
        sa.Column(
            "move_messages_within_stream_limit_seconds",
            sa.Integer(),
            server_default="604800",
            nullable=True,
        ),
        sa.Column(
            "move_messages_between_streams_policy", sa.Integer(), server_default="1", nullable=False
        ),
        sa.Column(
            "move_messages_between_streams_limit_seconds",
            sa.Integer(),
            server_default="604800",
            nullable=True,
        ),
        sa.Column("delete_own_message_policy", sa.Integer(), server_default="5", nullable=False),
        sa.Column(
            "message_content_delete_limit_seconds",
            sa.Integer(),
            server_default="600",
            nullable=True,
        ),
        sa.Column("allow_edit_history", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.Column("mandatory_topics", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("wildcard_mention_policy", sa.Integer(), server_default="5", nullable=False),
        sa.Column("private_message_policy", sa.Integer(), server_default="1", nullable=False),
        sa.Column("create_public_stream_policy", sa.Integer(), server_default="1", nullable=False),
        sa.Column("create_private_stream_policy", sa.Integer(), server_default="1", nullable=False),
        sa.Column(
            "create_web_public_stream_policy", sa.Integer(), server_default="7", nullable=False
        ),
        sa.Column("invite_to_stream_policy", sa.Integer(), server_default="1", nullable=False),
        sa.Column("user_group_edit_policy", sa.Integer(), server_default="1", nullable=False),
        sa.Column("waiting_period_threshold", sa.Integer(), server_default="0", nullable=False),
        sa.Column(
            "enable_spectator_access", sa.Boolean(), server_default=sa.false(), nullable=False
        ),
        sa.Column("message_retention_days", sa.Integer(), nullable=True),
        sa.Column("email_address_visibility", sa.Integer(), server_default="1", nullable=False),
        sa.Column("default_language", sa.String(length=50), server_default="en", nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_realm")),
        sa.UniqueConstraint("string_id", name=op.f("uq_realm_string_id")),
    )
    op.create_table(
        "recipient",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("type", sa.SmallInteger(), nullable=False),
        sa.Column("type_id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_recipient")),
        sa.UniqueConstraint("type", "type_id", name=op.f("uq_recipient_type_type_id")),
    )
    op.create_table(
        "user_message",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.Integer(), nullable=False),
        sa.Column("flags", sa.BigInteger(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("user_id", "message_id", name=op.f("pk_user_message")),
        sqlite_with_rowid=False,
    )
    with op.batch_alter_table("user_message", schema=None) as batch_op:
        batch_op.create_index("ix_user_message_message_id", ["message_id"], unique=False)

    op.create_table(
        "custom_profile_field",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("hint", sa.String(length=80), server_default="", nullable=False),
        sa.Column("field_type", sa.SmallInteger(), nullable=False),
        sa.Column("field_data", sa.Text(), server_default="", nullable=False),
        sa.Column("order", sa.Integer(), nullable=False),
        sa.Column(
            "display_in_profile_summary", sa.Boolean(), server_default=sa.false(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["realm_id"], ["realm.id"], name=op.f("fk_custom_profile_field_realm_id_realm")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_custom_profile_field")),
    )
    op.create_table(
        "huddle",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("huddle_hash", sa.String(length=40), nullable=False),
        sa.Column("recipient_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["recipient_id"], ["recipient.id"], name=op.f("fk_huddle_recipient_id_recipient")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_huddle")),
        sa.UniqueConstraint("huddle_hash", name=op.f("uq_huddle_huddle_hash")),
    )
    op.create_table(
        "stream",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=60), nullable=False),
        sa.Column("description", sa.String(length=1024), server_default="", nullable=False),
        sa.Column("rendered_description", sa.Text(), server_default="", nullable=False),
        sa.Column("date_created", sa.Float(), nullable=False),
        sa.Column("deactivated", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("invite_only", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("is_web_public", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column(
            "history_public_to_subscribers",
            sa.Boolean(),
            server_default=sa.true(),
            nullable=False,
        ),
        sa.Column("stream_post_policy", sa.SmallInteger(), server_default="1", nullable=False),
        sa.Column("message_retention_days", sa.Integer(), nullable=True),
        sa.Column("can_remove_subscribers_group_id", sa.Integer(), nullable=False),
        sa.Column("first_message_id", sa.Integer(), nullable=True),
        sa.Column("recipient_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["realm_id"], ["realm.id"], name=op.f("fk_stream_realm_id_realm")),
        sa.ForeignKeyConstraint(
            ["recipient_id"], ["recipient.id"], name=op.f("fk_stream_recipient_id_recipient")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stream")),
    )
    op.create_table(
        "user_group",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("description", sa.Text(), server_default="", nullable=False),
        sa.Column("is_system_group", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("can_mention_group_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["realm_id"], ["realm.id"], name=op.f("fk_user_group_realm_id_realm")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_user_group")),
        sa.UniqueConstraint("realm_id", "name", name=op.f("uq_user_group_realm_id_name")),
    )
    op.create_table(
        "user_profile",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("delivery_email", sa.String(length=254), nullable=False),
        sa.Column("full_name", sa.String(length=100), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=True),
        sa.Column("api_key", sa.String(length=32), nullable=False),
        sa.Column("role", sa.SmallInteger(), server_default="400", nullable=False),
        sa.Column("is_active", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.Column("is_billing_admin", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("is_bot", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("bot_type", sa.SmallInteger(), nullable=True),
        sa.Column("bot_owner_id", sa.Integer(), nullable=True),
        sa.Column("timezone", sa.String(length=40), server_default="", nullable=False),
        sa.Column("avatar_source", sa.String(length=1), server_default="G", nullable=False),
        sa.Column("avatar_version", sa.Integer(), server_default="1", nullable=False),
        sa.Column("date_joined", sa.Float(), nullable=False),
        sa.Column("recipient_id", sa.Integer(), nullable=True),
        sa.Column(
            "enable_drafts_synchronization",
            sa.Boolean(),
            server_default=sa.true(),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["bot_owner_id"],
            ["user_profile.id"],
            name=op.f("fk_user_profile_bot_owner_id_user_profile"),
        ),
        sa.ForeignKeyConstraint(
            ["realm_id"], ["realm.id"], name=op.f("fk_user_profile_realm_id_realm")
        ),
        sa.ForeignKeyConstraint(
            ["recipient_id"], ["recipient.id"], name=op.f("fk_user_profile_recipient_id_recipient")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_user_profile")),
        sa.UniqueConstraint("api_key", name=op.f("uq_user_profile_api_key")),
    )
    with op.batch_alter_table("user_profile", schema=None) as batch_op:
        batch_op.create_index("ix_user_profile_bot_owner_id", ["bot_owner_id"], unique=False)

    op.create_table(
        "custom_profile_field_value",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("field_id", sa.Integer(), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("rendered_value", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["field_id"],
            ["custom_profile_field.id"],
            name=op.f("fk_custom_profile_field_value_field_id_custom_profile_field"),
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user_profile.id"],
            name=op.f("fk_custom_profile_field_value_user_id_user_profile"),
        ),
        sa.PrimaryKeyConstraint("user_id", "field_id", name=op.f("pk_custom_profile_field_value")),
    )
    op.create_table(
        "huddle_member",
        sa.Column("huddle_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["huddle_id"], ["huddle.id"], name=op.f("fk_huddle_member_huddle_id_huddle")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_profile.id"], name=op.f("fk_huddle_member_user_id_user_profile")
        ),
        sa.PrimaryKeyConstraint("huddle_id", "user_id", name=op.f("pk_huddle_member")),
    )
    op.create_table(
        "message",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("sender_id", sa.Integer(), nullable=False),
        sa.Column("recipient_id", sa.Integer(), nullable=False),
        sa.Column("stream_id", sa.Integer(), nullable=True),
        sa.Column("topic", sa.String(length=60), server_default="", nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("rendered_content", sa.Text(), nullable=True),
        sa.Column("rendered_content_version", sa.Integer(), nullable=True),
        sa.Column("date_sent", sa.Float(), nullable=False),
        sa.Column(
            "sending_client", sa.String(length=30), server_default="Internal", nullable=False
        ),
        sa.Column("last_edit_time", sa.Float(), nullable=True),
        sa.Column("edit_history", sa.Text(), nullable=True),
        sa.Column("is_me_message", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("has_attachment", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("has_image", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("has_link", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.ForeignKeyConstraint(["realm_id"], ["realm.id"], name=op.f("fk_message_realm_id_realm")),
        sa.ForeignKeyConstraint(
            ["recipient_id"], ["recipient.id"], name=op.f("fk_message_recipient_id_recipient")
        ),
        sa.ForeignKeyConstraint(
            ["sender_id"], ["user_profile.id"], name=op.f("fk_message_sender_id_user_profile")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_message")),
    )
    with op.batch_alter_table("message", schema=None) as batch_op:
        batch_op.create_index("ix_message_recipient_id", ["recipient_id", "id"], unique=False)
        batch_op.create_index("ix_message_sender_id", ["sender_id", "id"], unique=False)

    op.create_table(
        "subscription",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("stream_id", sa.Integer(), nullable=False),
        sa.Column("active", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.Column("color", sa.String(length=10), server_default="#c2c2c2", nullable=False),
        sa.Column("is_muted", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("pin_to_top", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("desktop_notifications", sa.Boolean(), nullable=True),
        sa.Column("audible_notifications", sa.Boolean(), nullable=True),
        sa.Column("push_notifications", sa.Boolean(), nullable=True),
        sa.Column("email_notifications", sa.Boolean(), nullable=True),
        sa.Column("wildcard_mentions_notify", sa.Boolean(), nullable=True),
        sa.ForeignKeyConstraint(
            ["stream_id"], ["stream.id"], name=op.f("fk_subscription_stream_id_stream")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_profile.id"], name=op.f("fk_subscription_user_id_user_profile")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_subscription")),
        sa.UniqueConstraint("user_id", "stream_id", name=op.f("uq_subscription_user_id_stream_id")),
    )
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.create_index(
            "ix_subscription_stream_active", ["stream_id", "active"], unique=False
        )

    op.create_table(
        "user_group_member",
        sa.Column("user_group_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_group_id"],
            ["user_group.id"],
            name=op.f("fk_user_group_member_user_group_id_user_group"),
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_profile.id"], name=op.f("fk_user_group_member_user_id_user_profile")
        ),
        sa.PrimaryKeyConstraint("user_group_id", "user_id", name=op.f("pk_user_group_member")),
    )
    with op.batch_alter_table("user_group_member", schema=None) as batch_op:
        batch_op.create_index("ix_user_group_member_user_id", ["user_id"], unique=False)

    op.create_table(
        "user_group_subgroup",
        sa.Column("supergroup_id", sa.Integer(), nullable=False),
        sa.Column("subgroup_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["subgroup_id"],
            ["user_group.id"],
            name=op.f("fk_user_group_subgroup_subgroup_id_user_group"),
        ),
        sa.ForeignKeyConstraint(
            ["supergroup_id"],
            ["user_group.id"],
            name=op.f("fk_user_group_subgroup_supergroup_id_user_group"),
        ),
        sa.PrimaryKeyConstraint(
            "supergroup_id", "subgroup_id", name=op.f("pk_user_group_subgroup")
        ),
    )

    # Expression indexes: autogenerate cannot compare them, so they are written out by hand.
    op.create_index(
        "ix_user_profile_realm_email",
        "user_profile",
        ["realm_id", sa.text("lower(email)")],
        unique=True,
    )
    op.create_index(
        "ix_stream_realm_name", "stream", ["realm_id", sa.text("lower(name)")], unique=True
    )
    op.create_index(
        "ix_message_stream_topic_id", "message", ["stream_id", sa.text("lower(topic)"), "id"]
    )


def downgrade() -> None:
    op.drop_index("ix_message_stream_topic_id", table_name="message")
    op.drop_index("ix_stream_realm_name", table_name="stream")
    op.drop_index("ix_user_profile_realm_email", table_name="user_profile")
    op.drop_table("user_group_subgroup")
    with op.batch_alter_table("user_group_member", schema=None) as batch_op:
        batch_op.drop_index("ix_user_group_member_user_id")

    op.drop_table("user_group_member")
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.drop_index("ix_subscription_stream_active")

    op.drop_table("subscription")
    with op.batch_alter_table("message", schema=None) as batch_op:
        batch_op.drop_index("ix_message_sender_id")
        batch_op.drop_index("ix_message_recipient_id")

    op.drop_table("message")
    op.drop_table("huddle_member")
    op.drop_table("custom_profile_field_value")
    with op.batch_alter_table("user_profile", schema=None) as batch_op:
        batch_op.drop_index("ix_user_profile_bot_owner_id")

    op.drop_table("user_profile")
    op.drop_table("user_group")
    op.drop_table("stream")
    op.drop_table("huddle")
    op.drop_table("custom_profile_field")
    with op.batch_alter_table("user_message", schema=None) as batch_op:
        batch_op.drop_index("ix_user_message_message_id")

    op.drop_table("user_message")
    op.drop_table("recipient")
    op.drop_table("realm")
