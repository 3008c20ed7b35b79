"""One random page of a namespace, for `Special:Random`: the first page at or after a random
point of `page_random`, wrapping round to the start (RandomPage::getRandomTitle)."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema

P = schema.page


def random_page(conn: Conn, ns: int, point: float) -> str | None:
    """The title key of a non-redirect page of `ns` chosen at `point` in [0, 1)."""
    base = (
        sa.select(P.c.page_title)
        .where(P.c.page_namespace == ns, P.c.page_is_redirect == sa.false())
        .order_by(P.c.page_random)
        .limit(1)
    )
    found = conn.scalar(base.where(P.c.page_random >= point))
    if found is None:
        found = conn.scalar(base)
    return None if found is None else str(found)
