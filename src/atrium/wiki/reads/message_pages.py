"""The interface messages a `MediaWiki:` page customises, for `Special:AllMessages`: each page's
current text, keyed by its message key (first letter lower-cased)."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.titles import NS_MEDIAWIKI


def customised_messages(conn: Conn) -> dict[str, str]:
    page, rev, text = schema.page, schema.revision, schema.text
    rows = conn.all(
        sa.select(page.c.page_title, text.c.old_text)
        .select_from(
            page.join(rev, rev.c.rev_id == page.c.page_latest).join(
                text, text.c.old_id == rev.c.rev_text_id
            )
        )
        .where(page.c.page_namespace == NS_MEDIAWIKI)
    )
    return {
        str(r["page_title"])[:1].lower() + str(r["page_title"])[1:]: str(r["old_text"])
        for r in rows
    }
