"""bot_service: an outgoing-webhook bot's endpoint, interface and token

Revision ID: 0011
Revises: 0010
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "bot_service",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("base_url", sa.String(length=2000), nullable=False),
        sa.Column("interface", sa.SmallInteger(), nullable=False),
        sa.Column("token", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_profile.id"], name=op.f("fk_bot_service_user_id_user_profile")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bot_service")),
    )
    op.create_index(op.f("ix_bot_service_user_id"), "bot_service", ["user_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_bot_service_user_id"), table_name="bot_service")
    op.drop_table("bot_service")
