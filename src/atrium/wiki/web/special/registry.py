"""The Special pages of this folder, registered in the skin's table of Special pages
(`web/specialpages`), which `Special:SpecialPages` lists and `views` dispatches to, and the
index.php actions that are Special pages in disguise (`action=protect`)."""

from __future__ import annotations

from collections.abc import Mapping

from starlette.requests import Request
from starlette.responses import Response

from atrium.core.db import Database
from atrium.wiki.site import Site
from atrium.wiki.titles import Title
from atrium.wiki.web import neighbours
from atrium.wiki.web import specialpages as skin_table
from atrium.wiki.web.special import (
    activeusers,
    allmessages,
    allpages,
    apihelp,
    autoblocklist,
    blankpage,
    block,
    blocklist,
    booksources,
    botpasswords,
    categories,
    changecontentmodel,
    changeemail,
    comparepages,
    confirmemail,
    contributions,
    delete,
    deletedcontributions,
    edittags,
    emailuser,
    expandtemplates,
    export,
    fileduplicatesearch,
    gotointerwiki,
    importpage,
    interwiki,
    linksearch,
    listfiles,
    listgrants,
    listgrouprights,
    listusers,
    log,
    mergehistory,
    mimesearch,
    movepage,
    newfiles,
    newpages,
    pagedata,
    pageswithprop,
    passwordpolicies,
    preferences,
    prefixindex,
    protect,
    protectedpages,
    purge,
    random,
    recentchanges,
    recentchangeslinked,
    redirect_action,
    redirect_lookup,
    redirects,
    reports,
    resettokens,
    revisiondelete,
    rollback,
    specialpages,
    statistics,
    tags,
    trackingcategories,
    unblock,
    undelete,
    upload,
    uploadstash,
    userrights,
    version,
    watchlist,
    whatlinkshere,
    workspace_settings,
)
from atrium.wiki.web.special.context import SpecialContext, discard_files, load_context
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.specialpages import Handler


async def _specialpages(ctx: SpecialContext) -> Response:
    titles = {page.name: page.title for page in PAGES}
    unlisted = {page.name for page in PAGES if not page.listed}
    if neighbours.workspace_settings(ctx.db) is None:
        # The wiki alone: no workspace to set.
        unlisted.add(workspace_settings.PAGE.name)
    table = [page for page in skin_table.all_pages() if page.name not in unlisted]
    return await specialpages.listing(ctx, table, titles)


PAGES: tuple[SpecialPage, ...] = (
    SpecialPage("SpecialPages", "Special pages", "wiki", _specialpages),
    activeusers.PAGE,
    allmessages.PAGE,
    allpages.PAGE,
    expandtemplates.PAGE,
    export.PAGE,
    fileduplicatesearch.PAGE,
    listgrouprights.PAGE,
    listusers.PAGE,
    mimesearch.PAGE,
    newfiles.PAGE,
    block.PAGE,
    blocklist.PAGE,
    categories.PAGE,
    contributions.PAGE,
    redirect_action.DELETE_PAGE,
    listfiles.PAGE,
    log.PAGE,
    movepage.PAGE,
    changeemail.PAGE,
    confirmemail.PAGE,
    confirmemail.INVALIDATE_PAGE,
    emailuser.PAGE,
    newpages.PAGE,
    prefixindex.PAGE,
    preferences.PAGE,
    redirect_action.PROTECT_PAGE,
    random.PAGE,
    recentchanges.PAGE,
    statistics.PAGE,
    undelete.PAGE,
    unblock.PAGE,
    upload.PAGE,
    userrights.PAGE,
    version.PAGE,
    watchlist.PAGE,
    watchlist.EDIT_PAGE,
    whatlinkshere.PAGE,
    workspace_settings.PAGE,
    protectedpages.PAGE,
    protectedpages.TITLES_PAGE,
    tags.PAGE,
    comparepages.PAGE,
    recentchangeslinked.PAGE,
    booksources.PAGE,
    pageswithprop.PAGE,
    trackingcategories.PAGE,
    random.REDIRECT_PAGE,
    random.ROOT_PAGE,
    random.IN_CATEGORY_PAGE,
    redirect_lookup.PAGE,
    redirect_lookup.FILEPATH_PAGE,
    blankpage.PAGE,
    interwiki.PAGE,
    apihelp.PAGE,
    gotointerwiki.PAGE,
    passwordpolicies.PAGE,
    linksearch.PAGE,
    pagedata.PAGE,
    redirect_action.EDIT_PAGE,
    redirect_action.HISTORY_PAGE,
    redirect_action.INFO_PAGE,
    redirect_action.NEW_SECTION_PAGE,
    redirect_action.PURGE_PAGE,
    *reports.PAGES,
    *redirects.PAGES,
    autoblocklist.PAGE,
    botpasswords.PAGE,
    deletedcontributions.PAGE,
    edittags.PAGE,
    importpage.PAGE,
    listgrants.PAGE,
    mergehistory.PAGE,
    changecontentmodel.PAGE,
    resettokens.PAGE,
    revisiondelete.PAGE,
    uploadstash.PAGE,
)
# index.php actions served by a Special page's handler, with the page as its target.
# Rollback and purge have no Special page of their own in MediaWiki: only the action
# (Special:Purge leads to it).
PAGE_ACTIONS = {
    "protect": protect.PAGE,
    "delete": delete.PAGE,
    "rollback": rollback.PAGE,
    "purge": purge.PAGE,
}
# index.php actions that run a Special page as it is (SpecialPageAction): the page's title is
# not their target; the history form reaches them as `action=historysubmit` with the button's
# name (ActionFactory::getActionName).
SPECIAL_PAGE_ACTIONS = {
    "revisiondelete": revisiondelete.PAGE,
    "editchangetags": edittags.PAGE,
}


def action_name(action: str, params: Mapping[str, str]) -> str:
    """`historysubmit` as the button that submitted the history form names it."""
    if action != "historysubmit":
        return action
    for name in ("revisiondelete", "editchangetags"):
        if params.get(name, "") not in ("", "0"):
            return name
    return "view"


def _adapter(page: SpecialPage) -> Handler:
    async def handle(request: Request, site: Site, db: Database, subpage: str | None) -> Response:
        ctx = await load_context(request, site, db, page.name, subpage or "")
        try:
            return await page.handler(ctx)
        finally:
            discard_files(ctx)

    return handle


for _page in PAGES:
    skin_table.special_page(
        _page.name, aliases=_page.aliases, group=_page.group, restriction=_page.restricted,
        post=True,
    )(_adapter(_page))  # fmt: skip


async def page_action(
    request: Request, site: Site, db: Database, title: Title, action: str
) -> Response | None:
    """The response of an index.php action a Special page serves, or None for other actions."""
    special = SPECIAL_PAGE_ACTIONS.get(action)
    page = special or PAGE_ACTIONS.get(action)
    if page is None:
        return None
    ctx = await load_context(request, site, db, page.name, "")
    if special is None:
        ctx.target = title
    try:
        return await page.handler(ctx)
    finally:
        discard_files(ctx)
