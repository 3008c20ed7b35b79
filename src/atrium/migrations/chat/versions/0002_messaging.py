"""chat messaging: drafts, scheduled messages, full-text search index

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21 06:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "draft",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=10), server_default="", nullable=False),
        sa.Column("to_ids", sa.Text(), server_default="[]", nullable=False),
        sa.Column("topic", sa.String(length=60), server_default="", nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("last_edit_time", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_profile.id"], name=op.f("fk_draft_user_id_user_profile")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_draft")),
    )
    op.create_index(
        "ix_draft_user_id_last_edit_time", "draft", ["user_id", "last_edit_time"], unique=False
    )
    op.create_table(
        "scheduled_message",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("sender_id", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=10), nullable=False),
        sa.Column("stream_id", sa.Integer(), nullable=True),
        sa.Column("to_user_ids", sa.Text(), server_default="[]", nullable=False),
        sa.Column("topic", sa.String(length=60), server_default="", nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("rendered_content", sa.Text(), nullable=False),
        sa.Column(
            "sending_client", sa.String(length=30), server_default="Internal", nullable=False
        ),
        sa.Column("scheduled_timestamp", sa.Float(), nullable=False),
        sa.Column("delivered", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("failed", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("failure_message", sa.Text(), nullable=True),
        sa.Column("delivered_message_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["realm_id"], ["realm.id"], name=op.f("fk_scheduled_message_realm_id_realm")
        ),
        sa.ForeignKeyConstraint(
            ["sender_id"],
            ["user_profile.id"],
            name=op.f("fk_scheduled_message_sender_id_user_profile"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scheduled_message")),
    )
    op.create_index(
        "ix_scheduled_message_sender_id", "scheduled_message", ["sender_id"], unique=False
    )
    op.create_index(
        "ix_scheduled_message_due",
        "scheduled_message",
        ["delivered", "failed", "scheduled_timestamp"],
        unique=False,
    )
    # The full-text index (see atrium/chat/search.py), filled from the messages already stored.
    if op.get_bind().dialect.name == "sqlite":
        op.execute(
            "CREATE VIRTUAL TABLE message_search USING fts5("
            "topic, content, tokenize = 'porter unicode61 remove_diacritics 2')"
        )
        op.execute(
            "INSERT INTO message_search(rowid, topic, content) SELECT id, topic, content FROM message"
        )
    else:
        op.execute(
            "CREATE TABLE message_search ("
            "message_id integer PRIMARY KEY, search_tsvector tsvector NOT NULL)"
        )
        op.execute(
            "INSERT INTO message_search(message_id, search_tsvector) "
            "SELECT id, to_tsvector('english'::regconfig, topic || ' ' || content) FROM message"
        )
        op.execute(
            "CREATE INDEX ix_message_search_tsvector ON message_search USING gin (search_tsvector)"
        )


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS message_search")
    op.drop_index("ix_scheduled_message_due", table_name="scheduled_message")
    op.drop_index("ix_scheduled_message_sender_id", table_name="scheduled_message")
    op.drop_table("scheduled_message")
    op.drop_index("ix_draft_user_id_last_edit_time", table_name="draft")
    op.drop_table("draft")
