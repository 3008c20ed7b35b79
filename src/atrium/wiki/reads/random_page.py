"""One random page, for `Special:Random`, `RandomRedirect` and `RandomRootpage`: the first page
at or after a random point of `page_random`, wrapping round to the start
(RandomPage::getRandomTitle); and for `Special:RandomInCategory`, a member near a random point of
the category's `cl_timestamp` range (SpecialRandomInCategory::getRandomTitle)."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema

P = schema.page
CL = schema.categorylinks
_TS = "%Y%m%d%H%M%S"


def random_page(
    conn: Conn, ns: int, point: float, *, redirect: bool = False, root: bool = False
) -> str | None:
    """The title key of a page of `ns` chosen at `point` in [0, 1): a redirect when `redirect`,
    else a page that is not one; with `root`, only a page that is not a sub-page."""
    base = sa.select(P.c.page_title).where(
        P.c.page_namespace == ns, P.c.page_is_redirect == (sa.true() if redirect else sa.false())
    )
    if root:
        base = base.where(~P.c.page_title.contains("/", autoescape=True))
    base = base.order_by(P.c.page_random).limit(1)
    found = conn.scalar(base.where(P.c.page_random >= point))
    if found is None:
        found = conn.scalar(base)
    return None if found is None else str(found)


def random_member(
    conn: Conn, category: str, point: float, skip: int, up: bool
) -> tuple[int, str] | None:
    """(namespace, title key) of a member of `category`: the `skip`-th after (`up`) or before a
    random moment of the span its members were added in, with MediaWiki's fallbacks (no
    timestamp bound, then no skip) when that runs off the end; None for an empty category."""
    span = conn.one(
        sa.select(
            sa.func.min(CL.c.cl_timestamp).label("low"),
            sa.func.max(CL.c.cl_timestamp).label("high"),
        ).where(CL.c.cl_to == category)
    )
    if span is None or span["low"] is None:
        return None
    moment: str | None = None  # stays None for a value that is not a timestamp: no bound
    with contextlib.suppress(ValueError):
        low, high = (
            datetime.strptime(str(span[end]), _TS).replace(tzinfo=UTC).timestamp()
            for end in ("low", "high")
        )
        moment = datetime.fromtimestamp(int(low + (high - low) * point), UTC).strftime(_TS)

    def pick(bounded: bool, offset: int, ascending: bool) -> tuple[int, str] | None:
        query = (
            sa.select(P.c.page_namespace, P.c.page_title)
            .select_from(CL.join(P, P.c.page_id == CL.c.cl_from))
            .where(CL.c.cl_to == category)
        )
        if bounded and moment is not None:
            query = query.where(
                CL.c.cl_timestamp >= moment if ascending else CL.c.cl_timestamp <= moment
            )
        order = CL.c.cl_timestamp.asc() if ascending else CL.c.cl_timestamp.desc()
        row = conn.one(query.order_by(order, CL.c.cl_from).offset(offset).limit(1))
        return None if row is None else (int(row["page_namespace"]), str(row["page_title"]))

    return (
        pick(True, skip, up) or pick(False, skip, up) or pick(True, 0, up) or pick(False, 0, True)
    )
