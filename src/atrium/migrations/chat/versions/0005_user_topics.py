"""user_topic: per-user topic visibility policies (muted, unmuted, followed)

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "user_topic",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("stream_id", sa.Integer(), nullable=False),
        sa.Column("recipient_id", sa.Integer(), nullable=False),
        sa.Column("topic_name", sa.String(length=60), nullable=False),
        sa.Column("last_updated", sa.Float(), nullable=False),
        sa.Column("visibility_policy", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_profile.id"], name=op.f("fk_user_topic_user_id_user_profile")
        ),
        sa.ForeignKeyConstraint(
            ["stream_id"], ["stream.id"], name=op.f("fk_user_topic_stream_id_stream")
        ),
        sa.ForeignKeyConstraint(
            ["recipient_id"], ["recipient.id"], name=op.f("fk_user_topic_recipient_id_recipient")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_user_topic")),
    )
    op.create_index(
        "ix_user_topic_user_id_stream_id_topic",
        "user_topic",
        ["user_id", "stream_id", sa.text("lower(topic_name)")],
        unique=True,
    )


def downgrade() -> None:
    op.drop_index("ix_user_topic_user_id_stream_id_topic", table_name="user_topic")
    op.drop_table("user_topic")
