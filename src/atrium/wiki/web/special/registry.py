"""The table of Special pages and the dispatch of `Special:<Name>[/<subpage>]` and of the page
actions that are Special pages in disguise (`action=protect`, `action=delete`).

Names are matched without regard to case, as MediaWiki's aliases are; an unknown name answers 404
with MediaWiki's "No such special page", never the "create this page" of a missing article.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from atrium.core.db import Database
from atrium.wiki.reads.users import Account
from atrium.wiki.site import Site
from atrium.wiki.titles import Title
from atrium.wiki.web.special import (
    allpages,
    block,
    blocklist,
    categories,
    prefixindex,
    protect,
    random,
    recentchanges,
    specialpages,
    unblock,
    upload,
)
from atrium.wiki.web.special.context import Skin, SpecialContext, load_context, reader
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import message_page


async def _specialpages(ctx: SpecialContext) -> Response:
    return specialpages.listing(ctx, list(TABLE.values()))


TABLE: dict[str, SpecialPage] = {
    page.name.lower(): page
    for page in (
        SpecialPage("SpecialPages", "Special pages", "wiki", _specialpages),
        allpages.PAGE,
        block.PAGE,
        blocklist.PAGE,
        categories.PAGE,
        prefixindex.PAGE,
        protect.PAGE,
        random.PAGE,
        recentchanges.PAGE,
        unblock.PAGE,
        upload.PAGE,
    )
}

# index.php actions served by a Special page's handler, with the page as its target.
PAGE_ACTIONS: dict[str, str] = {"protect": "Protect"}


async def dispatch(
    request: Request,
    site: Site,
    db: Database,
    title: Title,
    form: dict[str, str],
    skin: Skin,
    files: dict[str, tuple[str, bytes]] | None = None,
) -> Response:
    """`title` is in the Special namespace: its page, or MediaWiki's "No such special page"."""
    name, _, subpage = title.dbkey.partition("/")
    page = TABLE.get(name.lower())
    ctx = await load_context(request, site, db, subpage.replace("_", " "), form, skin)
    ctx.files = files or {}
    if page is None:
        return await message_page(
            ctx,
            "No such special page",
            "'''You have requested an invalid special page.'''\n\n"
            "A list of valid special pages can be found at "
            "[[Special:SpecialPages|Special pages]].",
            404,
        )
    return await page.handler(ctx)


async def reader_of(request: Request, db: Database) -> Account:
    """The signed-in reader of a request (anonymous without a session)."""
    return await reader(request, db)


async def page_action(
    request: Request,
    site: Site,
    db: Database,
    title: Title,
    action: str,
    form: dict[str, str],
    skin: Skin,
) -> Response | None:
    """The response of an index.php action a Special page serves, or None for other actions."""
    name = PAGE_ACTIONS.get(action)
    if name is None:
        return None
    ctx = await load_context(request, site, db, "", form, skin)
    ctx.target = title
    return await TABLE[name.lower()].handler(ctx)
