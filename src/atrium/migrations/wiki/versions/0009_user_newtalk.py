"""user_newtalk: the new-talk notification (`meta=userinfo&uiprop=hasmsg`).

Revision ID: 0009
Revises: 0007
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "user_newtalk",
        sa.Column("user_id", sa.Integer, nullable=False, server_default="0"),
        sa.Column("user_ip", sa.String(40), nullable=False, server_default=""),
        sa.Column("user_last_timestamp", sa.String(14), nullable=True),
    )
    op.create_index("un_user_id", "user_newtalk", ["user_id"])
    op.create_index("un_user_ip", "user_newtalk", ["user_ip"])


def downgrade() -> None:
    op.drop_index("un_user_ip", table_name="user_newtalk")
    op.drop_index("un_user_id", table_name="user_newtalk")
    op.drop_table("user_newtalk")
