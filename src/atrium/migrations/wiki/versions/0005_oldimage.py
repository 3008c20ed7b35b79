"""oldimage: the earlier versions of uploaded files

Revision ID: 0005
Revises: 0004
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_KEY = sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql")


def upgrade() -> None:
    op.create_table(
        "oldimage",
        sa.Column("oi_id", sa.Integer(), nullable=False),
        sa.Column("oi_name", _KEY, nullable=False),
        sa.Column("oi_archive_name", _KEY, nullable=False),
        sa.Column("oi_deleted", sa.Integer(), server_default="0", nullable=False),
        sa.Column("oi_size", sa.Integer(), server_default="0", nullable=False),
        sa.Column("oi_width", sa.Integer(), server_default="0", nullable=False),
        sa.Column("oi_height", sa.Integer(), server_default="0", nullable=False),
        sa.Column("oi_bits", sa.Integer(), server_default="0", nullable=False),
        sa.Column("oi_metadata", sa.Text(), server_default="", nullable=False),
        sa.Column("oi_media_type", sa.String(length=16), nullable=True),
        sa.Column("oi_major_mime", sa.String(length=16), server_default="unknown", nullable=False),
        sa.Column("oi_minor_mime", sa.String(length=100), server_default="unknown", nullable=False),
        sa.Column("oi_description_id", sa.Integer(), nullable=False),
        sa.Column("oi_actor", sa.Integer(), nullable=False),
        sa.Column("oi_timestamp", sa.String(length=14), nullable=False),
        sa.Column("oi_sha1", sa.String(length=32), server_default="", nullable=False),
        sa.PrimaryKeyConstraint("oi_id"),
    )
    with op.batch_alter_table("oldimage", schema=None) as batch_op:
        batch_op.create_index("oi_name_timestamp", ["oi_name", "oi_timestamp"], unique=False)
        batch_op.create_index("oi_name_archive_name", ["oi_name", "oi_archive_name"], unique=False)
        batch_op.create_index("oi_actor_timestamp", ["oi_actor", "oi_timestamp"], unique=False)
        batch_op.create_index("oi_sha1", ["oi_sha1"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("oldimage", schema=None) as batch_op:
        batch_op.drop_index("oi_sha1")
        batch_op.drop_index("oi_actor_timestamp")
        batch_op.drop_index("oi_name_archive_name")
        batch_op.drop_index("oi_name_timestamp")
    op.drop_table("oldimage")
