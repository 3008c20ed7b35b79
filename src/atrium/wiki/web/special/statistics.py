"""`Special:Statistics`: the wiki's counts, the same read as `meta=siteinfo&siprop=statistics`,
and the number of uploaded files."""

from __future__ import annotations

from starlette.responses import Response

from atrium.core.db import Conn
from atrium.wiki.reads.site_statistics import file_count, statistics
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render


def _read(conn: Conn) -> tuple[dict[str, int], int]:
    return statistics(conn), file_count(conn)


async def handle(ctx: SpecialContext) -> Response:
    counts, files = await ctx.db.read(_read)
    return await render(ctx, "statistics.html", "Statistics", counts=counts, files=files)


PAGE = SpecialPage("Statistics", "Statistics", "wiki", handle)
