"""`Special:Version`: the software the wiki runs (the MediaWiki version it answers as, Atrium's
own, Python and the database) and its entry points."""

from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version

from starlette.responses import Response

from atrium.wiki.site import GENERATOR, SCRIPT_PATH
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render


def _atrium_version() -> str:
    try:
        return version("atrium")
    except PackageNotFoundError:
        return "unknown"


async def handle(ctx: SpecialContext) -> Response:
    software = [
        ("MediaWiki (as answered)", GENERATOR.removeprefix("MediaWiki ")),
        ("Atrium", _atrium_version()),
        ("Python", platform.python_version()),
        ("Database", "SQLite" if ctx.db.is_sqlite else "PostgreSQL"),
    ]
    entry_points = [
        ("Article path", "/wiki/$1"),
        ("Script path", SCRIPT_PATH),
        ("index.php", f"{SCRIPT_PATH}/index.php"),
        ("api.php", f"{SCRIPT_PATH}/api.php"),
    ]
    return await render(
        ctx, "version.html", "Version", software=software, entry_points=entry_points
    )


PAGE = SpecialPage("Version", "Version", "wiki", handle)
