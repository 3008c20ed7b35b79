"""People's one account across services: identities and the service users they own.

Revision ID: identity1
Revises: 0001
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "identity1"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "identity",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("email", sa.String(254), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=False, server_default=""),
        sa.Column("active", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "identity_account",
        sa.Column(
            "identity_id",
            sa.Integer,
            sa.ForeignKey("identity.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("service", sa.String(20), primary_key=True),
        sa.Column("user_id", sa.BigInteger, nullable=True),
        sa.Column("name", sa.String(255), nullable=True),
        sa.UniqueConstraint("service", "user_id", name="identity_account_user"),
        sa.UniqueConstraint("service", "name", name="identity_account_name"),
    )


def downgrade() -> None:
    op.drop_table("identity_account")
    op.drop_table("identity")
