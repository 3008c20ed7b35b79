"""subscription (stream_id, active, user_id): subscriber lists read from the index alone

Replaces ix_subscription_stream_active (stream_id, active), a prefix of the new index. GET
/users/me/subscriptions?include_subscribers=true reads 200,000 subscribers of 1,000 streams
from it in stream and user order, without touching the table.

Revision ID: 0003b
Revises: 0003
Create Date: 2026-11-23 10:00:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0003b"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_subscription_stream_active_user",
        "subscription",
        ["stream_id", "active", "user_id"],
        unique=False,
    )
    op.drop_index("ix_subscription_stream_active", table_name="subscription")


def downgrade() -> None:
    op.create_index(
        "ix_subscription_stream_active", "subscription", ["stream_id", "active"], unique=False
    )
    op.drop_index("ix_subscription_stream_active_user", table_name="subscription")
