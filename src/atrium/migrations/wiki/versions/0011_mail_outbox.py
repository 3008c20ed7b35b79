"""mail_outbox: the mails the wiki has to send, written in the transaction that causes them;
user_newpassword and user_newpass_time: the temporary password Special:PasswordReset mails;
user_email_authenticated, user_email_token(_expires): Special:ConfirmEmail's state

Revision ID: email2
Revises: 0010
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "email2"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("user", sa.Column("user_newpassword", sa.Text, nullable=False, server_default=""))
    op.add_column("user", sa.Column("user_newpass_time", sa.String(14), nullable=True))
    op.add_column("user", sa.Column("user_email_authenticated", sa.String(14), nullable=True))
    op.add_column("user", sa.Column("user_email_token", sa.String(64), nullable=True))
    op.add_column("user", sa.Column("user_email_token_expires", sa.String(14), nullable=True))
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


def downgrade() -> None:
    op.drop_index("ix_mail_outbox_due", table_name="mail_outbox")
    op.drop_table("mail_outbox")
    with op.batch_alter_table("user") as batch:
        batch.drop_column("user_email_token_expires")
        batch.drop_column("user_email_token")
        batch.drop_column("user_email_authenticated")
        batch.drop_column("user_newpass_time")
        batch.drop_column("user_newpassword")
