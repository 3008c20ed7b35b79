"""Each person's own workspace settings (chat notifications of their wiki watchlist).

Revision ID: bridge0002
Revises: bridge0001
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "bridge0002"
down_revision: str | None = "bridge0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "person_setting",
        sa.Column("chat_user_id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("value", sa.String(300), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("person_setting")
