"""mail_outbox: the mails the chat has to send, written in the transaction that causes them;
missed_message_email: the missed-message mails waiting out their batching period;
digest_sent: when each user last got a digest

Revision ID: email1
Revises: 0012
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "email1"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mail_outbox",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("message_id", sa.String(255), nullable=False, unique=True),
        sa.Column("sender", sa.String(254), nullable=False),
        sa.Column("recipient", sa.String(254), nullable=False),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("due", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("claimed_until", sa.Float, nullable=True),
        sa.Column("sent", sa.Float, nullable=True),
        sa.Column("last_error", sa.Text, nullable=True),
    )
    op.create_index(
        "ix_mail_outbox_due",
        "mail_outbox",
        ["due"],
        sqlite_where=sa.text("sent IS NULL"),
        postgresql_where=sa.text("sent IS NULL"),
    )

    op.create_table(
        "missed_message_email",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("user_profile.id"), nullable=False),
        sa.Column("message_id", sa.Integer, nullable=False),
        sa.Column("trigger", sa.String(32), nullable=False),
        sa.Column("due", sa.Float, nullable=False),
    )
    op.create_index("ix_missed_message_email_due", "missed_message_email", ["due"])
    op.create_index("ix_missed_message_email_user", "missed_message_email", ["user_id"])
    op.create_table(
        "digest_sent",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("user_profile.id"), primary_key=True),
        sa.Column("sent", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("digest_sent")
    op.drop_table("missed_message_email")
    op.drop_index("ix_mail_outbox_due", table_name="mail_outbox")
    op.drop_table("mail_outbox")
