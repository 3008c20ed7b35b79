"""searchslim: a contentless FTS5 index without positions whose rowids carry the namespace, so
that `list=search` counts its hits without reading positions or the page table (SQLite only; see
`atrium.wiki.search`). Filled from `searchindex` in batches of page ids.

Revision ID: 0007
Revises: 0006
"""

import logging
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from atrium.wiki import search

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 5000
log = logging.getLogger("alembic.runtime.migration")


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        return
    # An earlier layout of this revision (the namespace as a word) is rebuilt, not kept.
    op.execute("DROP TABLE IF EXISTS searchslim")
    op.execute("DROP TABLE IF EXISTS searchslim_page")
    for statement in search.SQLITE_SLIM_DDL:
        op.execute(statement)
    total = int(bind.execute(sa.text("SELECT COUNT(*) FROM searchindex")).scalar() or 0)
    select = sa.text(
        "SELECT searchindex.rowid AS id, page_namespace, si_title, si_text FROM searchindex"
        " CROSS JOIN page ON page_id = searchindex.rowid"
        " WHERE searchindex.rowid > :after ORDER BY searchindex.rowid LIMIT :batch"
    )
    insert = sa.text(
        "INSERT INTO searchslim (rowid, ss_title, ss_text) VALUES (:id, :title, :text)"
    )
    held = sa.text("INSERT INTO searchslim_page (ssp_page, ssp_namespace) VALUES (:id, :ns)")
    after, done = 0, 0
    while True:
        rows = bind.execute(select, {"after": after, "batch": BATCH}).all()
        if not rows:
            break
        bind.execute(
            insert,
            [
                {
                    "id": search.slim_rowid(int(r.page_namespace), int(r.id)),
                    "title": r.si_title,
                    "text": r.si_text,
                }
                for r in rows
            ],
        )
        bind.execute(held, [{"id": r.id, "ns": r.page_namespace} for r in rows])
        after, done = int(rows[-1].id), done + len(rows)
        log.info("searchslim: %d of %d pages indexed", done, total)
    bind.execute(sa.text("INSERT INTO searchslim (searchslim) VALUES ('optimize')"))


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    op.execute("DROP TABLE IF EXISTS searchslim_page")
    op.execute("DROP TABLE IF EXISTS searchslim")
