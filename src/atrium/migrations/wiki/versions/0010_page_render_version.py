"""page_render_version: what the cached rendering of a page is keyed by.

Revision ID: 0010
Revises: 0009
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("page") as batch:
        batch.add_column(
            sa.Column("page_render_version", sa.BigInteger, nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("page") as batch:
        batch.drop_column("page_render_version")
