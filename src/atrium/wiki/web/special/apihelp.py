"""`Special:ApiHelp/<module>` (`…/sub/<module>`, `…/rsub/<module>` for its submodules): the API's
help for a module. Opened in a browser, MediaWiki's page sends the reader on to
`api.php?action=help&modules=<module>`, where the help generator answers; so does this one."""

from __future__ import annotations

from urllib.parse import urlencode

from starlette.responses import RedirectResponse, Response

from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage

MAX_PATH = 255  # a module path is a few names (`query+allpages`)


async def handle(ctx: SpecialContext) -> Response:
    path = ctx.subpage.strip()[:MAX_PATH] or "main"
    options: dict[str, str] = {"action": "help"}
    submodules = "submodules" in ctx.request.query_params
    recursive = "recursivesubmodules" in ctx.request.query_params
    while True:
        if path.startswith("sub/"):
            path, submodules = path[4:], True
        elif path.startswith("rsub/"):
            path, recursive = path[5:], True
        else:
            break
    if submodules:
        options["submodules"] = "1"
    if recursive:
        options["recursivesubmodules"] = "1"
    options["modules"] = path.replace(" ", "_")
    return RedirectResponse(f"{ctx.site.api_url}?{urlencode(options)}", status_code=302)


PAGE = SpecialPage("ApiHelp", "API help", "other", handle, listed=False)
