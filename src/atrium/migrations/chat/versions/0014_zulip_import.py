"""zulip_import: the archive an organization was imported from (reruns find it done)

Revision ID: 0014
Revises: email1
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | Sequence[str] | None = "email1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "zulip_import",
        sa.Column("realm_id", sa.Integer(), nullable=False),
        sa.Column("archive_sha256", sa.String(length=64), nullable=False),
        sa.Column("imported_at", sa.Float(), nullable=False),
        sa.Column("report", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["realm_id"], ["realm.id"], name=op.f("fk_zulip_import_realm_id_realm")
        ),
        sa.PrimaryKeyConstraint("realm_id", name=op.f("pk_zulip_import")),
    )


def downgrade() -> None:
    op.drop_table("zulip_import")
