"""Special pages that send the browser to an index.php action on a page
(SpecialRedirectWithAction, SpecialNewSection): `Special:EditPage/<page>`, `PageHistory`,
`PageInfo`, `Purge` and `NewSection` (listed among the redirecting pages, as 1.39 lists them), and the
unlisted `Special:DeletePage` and `Special:ProtectPage`; without a page, a form asks for one. The
action itself checks the rights."""

from __future__ import annotations

from starlette.responses import RedirectResponse, Response

from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import Links, render


def _page(
    name: str,
    heading: str,
    action: str,
    button: str,
    *,
    field: str = "target",
    label: str = "Page:",
    extra: tuple[tuple[str, str], ...] = (),
    listed: bool = False,
    group: str = "pagetools",
) -> SpecialPage:
    async def handle(ctx: SpecialContext) -> Response:
        text = ctx.param(field) or ctx.param("page" if field == "target" else "target")
        text = text or ctx.subpage
        title = ctx.title_of(text)
        if title is not None:
            href = Links(ctx.site).index(title, action=action, **dict(extra))
            return RedirectResponse(href, status_code=302)
        error = "The requested page title is empty or invalid." if text.strip() else ""
        return await render(
            ctx, "redirect_action.html", heading, name=name, target=text, error=error,
            button=button, field=field, label=label,
        )  # fmt: skip

    return SpecialPage(name, heading, group, handle, listed=listed)


def _listed(name: str, heading: str, action: str, **extra: str) -> SpecialPage:
    """One of the pages 1.39 lists among the redirecting special pages, with its texts."""
    return _page(
        name, heading, action, "Go to page", field="page", label="Target page",
        extra=tuple(extra.items()), listed=True, group="redirects",
    )  # fmt: skip


DELETE_PAGE = _page("DeletePage", "Delete a page", "delete", "Delete")
PROTECT_PAGE = _page("ProtectPage", "Change protection level", "protect", "Change protection")
EDIT_PAGE = _listed("EditPage", "Edit a page", "edit")
HISTORY_PAGE = _listed("PageHistory", "Page history", "history")
INFO_PAGE = _listed("PageInfo", "Page info", "info")
NEW_SECTION_PAGE = _listed("NewSection", "New section", "edit", section="new")
PURGE_PAGE = _listed("Purge", "Purge", "purge")
