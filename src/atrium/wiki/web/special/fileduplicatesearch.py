"""`Special:FileDuplicateSearch`: the files whose content is the same as a given file's (its
SHA-1); an unknown or invalid name says so."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.reads.user_lists import duplicates_of
from atrium.wiki.titles import NS_FILE, Title
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render


async def handle(ctx: SpecialContext) -> Response:
    text = (ctx.param("filename") or ctx.subpage).strip()
    title = ctx.title_of(f"File:{text.removeprefix('File:')}") if text else None
    error = ""
    same: list[Title] = []
    if text and title is None:
        error = "The requested page title is empty or invalid."
    elif title is not None:
        found, rows = await ctx.db.read(duplicates_of, title.dbkey)
        if found is None:
            error = f'There is no file named "{text}".'
        same = [Title(NS_FILE, str(r["img_name"])) for r in rows]
    return await render(
        ctx, "fileduplicatesearch.html", "File duplicate search", filename=text,
        title=title, same=same, error=error,
    )  # fmt: skip


PAGE = SpecialPage("FileDuplicateSearch", "File duplicate search", "media", handle)
