"""The wiki feed's rules, posts and cursors; workspace settings.

Revision ID: bridge0001
Revises:
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "bridge0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "wiki_feed_rule",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("realm_id", sa.Integer, nullable=False),
        sa.Column("stream_id", sa.Integer, nullable=False),
        sa.Column("topic", sa.String(60), nullable=False, server_default=""),
        sa.Column("scope", sa.String(16), nullable=False),
        sa.Column("target", sa.String(300), nullable=False, server_default=""),
        sa.Column("events", sa.String(64), nullable=False),
        sa.Column("created_by", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "wiki_feed_post",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("rule_id", sa.Integer, nullable=False),
        sa.Column("message_id", sa.Integer, nullable=False),
        sa.Column("page_id", sa.Integer, nullable=False),
        sa.Column("rev_id", sa.Integer, nullable=True),
        sa.Column("log_id", sa.Integer, nullable=True),
    )
    op.create_index("wiki_feed_post_page", "wiki_feed_post", ["page_id"])
    op.create_table(
        "wiki_feed_cursor",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.Integer, nullable=False),
    )
    op.create_table(
        "workspace_setting",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("value", sa.String(300), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("workspace_setting")
    op.drop_table("wiki_feed_cursor")
    op.drop_index("wiki_feed_post_page", "wiki_feed_post")
    op.drop_table("wiki_feed_post")
    op.drop_table("wiki_feed_rule")
