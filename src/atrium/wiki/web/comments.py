"""Edit summaries and log reasons for the pages: `reads.comments` (Linker::formatComment) run
once for a whole list, a hidden summary staying None so the template says it was removed."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, TypeVar

from markupsafe import Markup

from atrium.core.db import Database
from atrium.wiki.reads.comments import format_comments
from atrium.wiki.site import Site
from atrium.wiki.titles import Title

Line = TypeVar("Line")


async def comment_html(
    db: Database, site: Site, items: Sequence[tuple[str | None, Title | None]]
) -> list[Markup | None]:
    """Each (summary or None, the page it is about) as HTML; None where it is hidden and ""
    where it is empty."""
    wanted = [(text, page) for text, page in items if text]
    done = iter(await db.read(format_comments, site, wanted) if wanted else [])
    return [
        None if text is None else Markup(next(done)) if text else Markup("")
        for text, _page in items
    ]


async def with_comment_html(db: Database, site: Site, lines: list[Line]) -> list[Line]:
    """Lines (dataclasses or dicts with `comment` and `title`) with their comments as HTML; a
    log line's comment is about its page too (the autocomment links there)."""

    def get(line: Any, key: str) -> Any:
        return line[key] if isinstance(line, dict) else getattr(line, key)

    html = await comment_html(db, site, [(get(x, "comment"), get(x, "title")) for x in lines])
    out: list[Any] = []
    for line, comment in zip(lines, html, strict=True):
        if isinstance(line, dict):
            out.append({**line, "comment": comment})
        else:
            out.append(dataclasses.replace(line, comment=comment))  # type: ignore[type-var]
    return out
