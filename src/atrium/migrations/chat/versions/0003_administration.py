"""chat administration: playgrounds, linkifiers, default streams, user settings, outgoing mail

Revision ID: 0003
Revises: 0001
Create Date: 2026-11-22 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A plain ADD COLUMN (SQLite supports it for columns with a constant default): a batch
    # rebuild of user_profile would lose its expression index on lower(email).
    op.add_column(
        "user_profile",
        sa.Column("translate_emoticons", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    op.add_column(
        "user_profile",
        sa.Column("default_language", sa.String(length=50), server_default="en", nullable=False),
    )
    op.create_table(
        "realm_playground",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("pygments_language", sa.String(length=40), nullable=False),
        sa.Column("url_prefix", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["realm_id"], ["realm.id"], name=op.f("fk_realm_playground_realm_id_realm")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_realm_playground")),
        sa.UniqueConstraint(
            "realm_id",
            "pygments_language",
            "name",
            name=op.f("uq_realm_playground_realm_id_pygments_language_name"),
        ),
    )
    op.create_table(
        "realm_filter",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("pattern", sa.Text(), nullable=False),
        sa.Column("url_template", sa.Text(), nullable=False),
        sa.Column("order", sa.Integer(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(
            ["realm_id"], ["realm.id"], name=op.f("fk_realm_filter_realm_id_realm")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_realm_filter")),
        sa.UniqueConstraint("realm_id", "pattern", name=op.f("uq_realm_filter_realm_id_pattern")),
    )
    op.create_table(
        "default_stream",
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("stream_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["realm_id"], ["realm.id"], name=op.f("fk_default_stream_realm_id_realm")
        ),
        sa.ForeignKeyConstraint(
            ["stream_id"], ["stream.id"], name=op.f("fk_default_stream_stream_id_stream")
        ),
        sa.PrimaryKeyConstraint("realm_id", "stream_id", name=op.f("pk_default_stream")),
    )
    op.create_table(
        "outgoing_email",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("to_address", sa.String(length=254), nullable=False),
        sa.Column("template", sa.String(length=60), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("sent", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["realm_id"], ["realm.id"], name=op.f("fk_outgoing_email_realm_id_realm")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_profile.id"], name=op.f("fk_outgoing_email_user_id_user_profile")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outgoing_email")),
    )


def downgrade() -> None:
    op.drop_table("outgoing_email")
    op.drop_table("default_stream")
    op.drop_table("realm_filter")
    op.drop_table("realm_playground")
    op.drop_column("user_profile", "default_language")
    op.drop_column("user_profile", "translate_emoticons")
