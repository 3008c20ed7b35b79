"""page properties and interwiki links

Revision ID: 0003
Revises: 0001_wiki_foundation
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0001_wiki_foundation"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_KEY = sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql")


def upgrade() -> None:
    op.create_table(
        "page_props",
        sa.Column("pp_page", sa.Integer(), nullable=False),
        sa.Column("pp_propname", sa.String(length=60), nullable=False),
        sa.Column("pp_value", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["pp_page"], ["page.page_id"]),
        sa.PrimaryKeyConstraint("pp_page", "pp_propname"),
    )
    with op.batch_alter_table("page_props", schema=None) as batch_op:
        batch_op.create_index("pp_propname_page", ["pp_propname", "pp_page"], unique=False)
    op.create_table(
        "iwlinks",
        sa.Column("iwl_from", sa.Integer(), nullable=False),
        sa.Column("iwl_prefix", sa.String(length=32), nullable=False),
        sa.Column("iwl_title", _KEY, nullable=False),
        sa.ForeignKeyConstraint(["iwl_from"], ["page.page_id"]),
        sa.PrimaryKeyConstraint("iwl_from", "iwl_prefix", "iwl_title"),
    )
    with op.batch_alter_table("iwlinks", schema=None) as batch_op:
        batch_op.create_index(
            "iwl_prefix_title_from", ["iwl_prefix", "iwl_title", "iwl_from"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("iwlinks", schema=None) as batch_op:
        batch_op.drop_index("iwl_prefix_title_from")
    op.drop_table("iwlinks")
    with op.batch_alter_table("page_props", schema=None) as batch_op:
        batch_op.drop_index("pp_propname_page")
    op.drop_table("page_props")
