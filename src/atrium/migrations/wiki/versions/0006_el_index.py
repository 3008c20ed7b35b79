"""externallinks.el_index / el_index_60: MediaWiki's reversed-domain index of each external link,
one row per index (a protocol-relative link has an http: and an https: row)

Revision ID: 0006
Revises: 0005
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from atrium.wiki.wikitext.linkfilter import make_indexes

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_INDEX_60 = sa.String(length=60).with_variant(sa.VARCHAR(length=60, collation="C"), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("externallinks") as batch_op:
        batch_op.add_column(sa.Column("el_index", sa.Text(), server_default="", nullable=False))
        batch_op.add_column(sa.Column("el_index_60", _INDEX_60, server_default="", nullable=False))
    bind = op.get_bind()
    el = sa.table(
        "externallinks",
        sa.column("el_id", sa.Integer()),
        sa.column("el_from", sa.Integer()),
        sa.column("el_to", sa.Text()),
        sa.column("el_index", sa.Text()),
        sa.column("el_index_60", sa.Text()),
    )
    rows = bind.execute(sa.select(el.c.el_id, el.c.el_from, el.c.el_to)).all()
    for el_id, el_from, el_to in rows:
        indexes = make_indexes(el_to)
        if not indexes:
            # LinksUpdate keeps no row for a URL LinkFilter cannot index.
            bind.execute(sa.delete(el).where(el.c.el_id == el_id))
            continue
        first, *others = indexes
        bind.execute(
            sa.update(el).where(el.c.el_id == el_id).values(el_index=first, el_index_60=first[:60])
        )
        for index in others:
            bind.execute(
                sa.insert(el).values(
                    el_from=el_from, el_to=el_to, el_index=index, el_index_60=index[:60]
                )
            )
    with op.batch_alter_table("externallinks") as batch_op:
        batch_op.create_index("el_index_60", ["el_index_60", "el_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("externallinks") as batch_op:
        batch_op.drop_index("el_index_60")
        batch_op.drop_column("el_index_60")
        batch_op.drop_column("el_index")
