"""Merge the messaging (0002) and administration (0003, 0003b) histories; index topics by recipient.

A stream narrow is compiled to `recipient_id = …` (so that the (recipient_id, id) index serves a
stream's newest messages); a stream + topic narrow then needs (recipient_id, lower(topic), id) to
read a topic's newest messages without scanning the whole stream.

Revision ID: 0004
Revises: 0002, 0003b
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = ("0002", "0003b")
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_message_recipient_topic_id",
        "message",
        ["recipient_id", sa.text("lower(topic)"), "id"],
    )


def downgrade() -> None:
    op.drop_index("ix_message_recipient_topic_id", table_name="message")
