"""Browser sessions shared by every service's pages: sessions and the services they sign in to.

Revision ID: 0001
Revises:
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "browser_session",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("csrf_token", sa.String(64), nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("expires_at", sa.BigInteger, nullable=False),
        sa.Column("user_agent", sa.String(200), nullable=False, server_default=""),
    )
    op.create_index("browser_session_expires_at", "browser_session", ["expires_at"])
    op.create_table(
        "browser_session_login",
        sa.Column(
            "session_id",
            sa.Integer,
            sa.ForeignKey("browser_session.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("service", sa.String(20), primary_key=True),
        sa.Column("user_id", sa.BigInteger, nullable=False),
    )
    op.create_index("browser_session_login_user", "browser_session_login", ["service", "user_id"])


def downgrade() -> None:
    op.drop_table("browser_session_login")
    op.drop_table("browser_session")
