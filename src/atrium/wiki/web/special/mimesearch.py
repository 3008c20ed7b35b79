"""`Special:MIMESearch`: the files of a MIME type (`image/png`, or `image/*` for every
subtype), by name, paged by `limit` and `offset`; a malformed type says so."""

from __future__ import annotations

import re

from starlette.responses import Response

from atrium.wiki.reads.user_lists import files_of_type
from atrium.wiki.titles import NS_FILE, Title
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render

_MIME = re.compile(r"([a-z0-9.+-]{1,16})/([a-z0-9.+*-]{1,100})")


async def handle(ctx: SpecialContext) -> Response:
    mime = (ctx.param("mime") or ctx.subpage).strip().lower()
    limit = ctx.int_param("limit", 50, 1, 5000)
    offset = ctx.int_param("offset", 0, 0, 10_000_000)
    match = _MIME.fullmatch(mime)
    files = []
    more = False
    error = ""
    if mime and match is None:
        error = f'"{mime}" is not a valid MIME type.'
    elif match is not None:
        minor = None if match.group(2) == "*" else match.group(2)
        rows = await ctx.db.read(files_of_type, match.group(1), minor, offset, limit)
        more = len(rows) > limit
        files = [
            {
                "title": Title(NS_FILE, str(r["img_name"])),
                "size": int(r["img_size"] or 0),
                "width": int(r["img_width"] or 0),
                "height": int(r["img_height"] or 0),
                "mime": f"{r['img_major_mime']}/{r['img_minor_mime']}",
            }
            for r in rows[:limit]
        ]
    return await render(
        ctx, "mimesearch.html", "Search for files by MIME type", 200, mime=mime, files=files,
        error=error, searched=match is not None, offset=offset, limit=limit, more=more,
    )  # fmt: skip


PAGE = SpecialPage("MIMESearch", "Search for files by MIME type", "media", handle)
