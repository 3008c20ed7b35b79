"""`Special:ListFiles` (`Special:ListFiles/<user>`): the uploaded files, newest first, with a
thumbnail, size, uploader and description; a hidden uploader's files are not found by their name
and read "(username removed)" to readers who may not see them."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from atrium.wiki.files.paths import hash_path, url_name
from atrium.wiki.reads.file_list import list_files
from atrium.wiki.titles import NS_FILE, Title
from atrium.wiki.web.comments import with_comment_html
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render
from atrium.wiki.web.visibility import DELETED_RESTRICTED, DELETED_USER, shown_user

THUMB = 120


async def file_entries(ctx: SpecialContext, uploader: str, limit: int) -> list[dict[str, Any]]:
    """The newest files (of one uploader), as the file lists and the gallery show them."""
    rows, hidden = await ctx.db.read(list_files, uploader or None, limit)
    entries = []
    images = ctx.site.images_path
    for row in rows:
        user_id = int(row["actor_user"] or 0)
        deleted = DELETED_USER | DELETED_RESTRICTED if user_id in hidden else 0
        user = shown_user(ctx.reader, deleted, str(row["actor_name"]))
        if uploader and user is None:
            continue
        name = str(row["img_name"])
        safe = url_name(name)
        width = int(row["img_width"] or 0)
        entries.append(
            {
                "title": Title(NS_FILE, name),
                "name": name.replace("_", " "),
                "time": local_time(str(row["img_timestamp"])),
                "url": f"{images}{hash_path(name)}{safe}",
                "thumb": (
                    f"{images}thumb/{hash_path(name)}{safe}/{THUMB}px-{safe}"
                    if width > THUMB
                    else f"{images}{hash_path(name)}{safe}"
                ),
                "size": int(row["img_size"] or 0),
                "user": user,
                "comment": str(row["comment_text"] or ""),
            }
        )
    return await with_comment_html(ctx.db, ctx.site, entries)


async def handle(ctx: SpecialContext) -> Response:
    uploader = (ctx.param("user") or ctx.subpage).strip().replace("_", " ")
    limit = ctx.int_param("limit", 50, 1, 500)
    entries = await file_entries(ctx, uploader, limit)
    return await render(
        ctx, "listfiles.html", "File list", uploader=uploader, limit=limit, entries=entries
    )


PAGE = SpecialPage("ListFiles", "File list", "media", handle)
