"""uploads, images, emoji, bots, invitations, domains, devices

Revision ID: 0009
Revises: 0007
Create Date: 2026-11-26 07:28:58.874537
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "realm_domain",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("domain", sa.String(length=80), nullable=False),
        sa.Column("allow_subdomains", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.ForeignKeyConstraint(
            ["realm_id"], ["realm.id"], name=op.f("fk_realm_domain_realm_id_realm")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_realm_domain")),
        sa.UniqueConstraint("realm_id", "domain", name=op.f("uq_realm_domain_realm_id_domain")),
    )
    op.create_table(
        "realm_image",
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=12), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=True),
        sa.Column("content_type", sa.String(length=255), nullable=True),
        sa.Column("version", sa.Integer(), server_default="1", nullable=False),
        sa.ForeignKeyConstraint(
            ["realm_id"], ["realm.id"], name=op.f("fk_realm_image_realm_id_realm")
        ),
        sa.PrimaryKeyConstraint("realm_id", "kind", name=op.f("pk_realm_image")),
    )
    op.create_table(
        "attachment",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("file_name", sa.Text(), nullable=False),
        sa.Column("path_id", sa.Text(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("content_type", sa.String(length=255), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("create_time", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["user_profile.id"], name=op.f("fk_attachment_owner_id_user_profile")
        ),
        sa.ForeignKeyConstraint(
            ["realm_id"], ["realm.id"], name=op.f("fk_attachment_realm_id_realm")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_attachment")),
        sa.UniqueConstraint("path_id", name=op.f("uq_attachment_path_id")),
    )
    with op.batch_alter_table("attachment", schema=None) as batch_op:
        batch_op.create_index("ix_attachment_owner_id", ["owner_id"], unique=False)
        batch_op.create_index("ix_attachment_sha256", ["sha256"], unique=False)

    op.create_table(
        "bot_settings",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("default_sending_stream_id", sa.Integer(), nullable=True),
        sa.Column("default_events_register_stream_id", sa.Integer(), nullable=True),
        sa.Column(
            "default_all_public_streams", sa.Boolean(), server_default=sa.false(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_profile.id"], name=op.f("fk_bot_settings_user_id_user_profile")
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_bot_settings")),
    )
    op.create_table(
        "invitation",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("invited_by_id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=True),
        sa.Column("invite_as", sa.SmallInteger(), nullable=False),
        sa.Column("stream_ids", sa.Text(), server_default="[]", nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("expires", sa.Float(), nullable=True),
        sa.Column("status", sa.SmallInteger(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(
            ["invited_by_id"],
            ["user_profile.id"],
            name=op.f("fk_invitation_invited_by_id_user_profile"),
        ),
        sa.ForeignKeyConstraint(
            ["realm_id"], ["realm.id"], name=op.f("fk_invitation_realm_id_realm")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_invitation")),
        sa.UniqueConstraint("token", name=op.f("uq_invitation_token")),
    )
    with op.batch_alter_table("invitation", schema=None) as batch_op:
        batch_op.create_index("ix_invitation_realm_id", ["realm_id"], unique=False)

    op.create_table(
        "push_device_token",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.SmallInteger(), nullable=False),
        sa.Column("token", sa.String(length=4096), nullable=False),
        sa.Column("ios_app_id", sa.Text(), nullable=True),
        sa.Column("last_updated", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_profile.id"], name=op.f("fk_push_device_token_user_id_user_profile")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_push_device_token")),
        sa.UniqueConstraint(
            "user_id", "kind", "token", name=op.f("uq_push_device_token_user_id_kind_token")
        ),
    )
    op.create_table(
        "realm_emoji",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=60), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=True),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("content_type", sa.String(length=255), nullable=False),
        sa.Column("file_ext", sa.String(length=10), nullable=False),
        sa.Column("deactivated", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.ForeignKeyConstraint(
            ["author_id"], ["user_profile.id"], name=op.f("fk_realm_emoji_author_id_user_profile")
        ),
        sa.ForeignKeyConstraint(
            ["realm_id"], ["realm.id"], name=op.f("fk_realm_emoji_realm_id_realm")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_realm_emoji")),
    )
    with op.batch_alter_table("realm_emoji", schema=None) as batch_op:
        batch_op.create_index("ix_realm_emoji_realm_id_name", ["realm_id", "name"], unique=False)

    op.create_table(
        "user_avatar",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("content_type", sa.String(length=255), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_profile.id"], name=op.f("fk_user_avatar_user_id_user_profile")
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_user_avatar")),
    )
    op.create_table(
        "user_hotspot",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("hotspot", sa.String(length=30), nullable=False),
        sa.Column("timestamp", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_profile.id"], name=op.f("fk_user_hotspot_user_id_user_profile")
        ),
        sa.PrimaryKeyConstraint("user_id", "hotspot", name=op.f("pk_user_hotspot")),
    )
    op.create_table(
        "attachment_message",
        sa.Column("attachment_id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["attachment_id"],
            ["attachment.id"],
            name=op.f("fk_attachment_message_attachment_id_attachment"),
        ),
        sa.PrimaryKeyConstraint("attachment_id", "message_id", name=op.f("pk_attachment_message")),
    )
    with op.batch_alter_table("attachment_message", schema=None) as batch_op:
        batch_op.create_index("ix_attachment_message_message_id", ["message_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("attachment_message", schema=None) as batch_op:
        batch_op.drop_index("ix_attachment_message_message_id")

    op.drop_table("attachment_message")
    op.drop_table("user_hotspot")
    op.drop_table("user_avatar")
    with op.batch_alter_table("realm_emoji", schema=None) as batch_op:
        batch_op.drop_index("ix_realm_emoji_realm_id_name")

    op.drop_table("realm_emoji")
    op.drop_table("push_device_token")
    with op.batch_alter_table("invitation", schema=None) as batch_op:
        batch_op.drop_index("ix_invitation_realm_id")

    op.drop_table("invitation")
    op.drop_table("bot_settings")
    with op.batch_alter_table("attachment", schema=None) as batch_op:
        batch_op.drop_index("ix_attachment_sha256")
        batch_op.drop_index("ix_attachment_owner_id")

    op.drop_table("attachment")
    op.drop_table("realm_image")
    op.drop_table("realm_domain")
