"""`Special:DeletePage` and `Special:ProtectPage` (SpecialRedirectWithAction): unlisted pages
that send the browser to the page's `action=delete` / `action=protect`, or, without a page,
ask for one. The action itself checks the rights."""

from __future__ import annotations

from starlette.responses import RedirectResponse, Response

from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import Links, render


def _page(name: str, heading: str, action: str, button: str) -> SpecialPage:
    async def handle(ctx: SpecialContext) -> Response:
        text = ctx.param("target") or ctx.subpage
        title = ctx.title_of(text)
        if title is not None:
            return RedirectResponse(Links(ctx.site).index(title, action=action), status_code=302)
        error = "The requested page title is empty or invalid." if text.strip() else ""
        return await render(
            ctx, "redirect_action.html", heading, name=name, target=text, error=error,
            button=button,
        )  # fmt: skip

    return SpecialPage(name, heading, "pagetools", handle, listed=False)


DELETE_PAGE = _page("DeletePage", "Delete a page", "delete", "Delete")
PROTECT_PAGE = _page("ProtectPage", "Change protection level", "protect", "Change protection")
