"""`Special:Interwiki` (MediaWiki's bundled Interwiki extension, as a reader without the
`interwiki` right sees it): the interwiki prefixes `[[prefix:Page]]` links with, the wiki's own
(given by the services beside it) and the interlanguage ones, each with its URL. The prefixes are
configuration, not data anyone edits here: the page only reads them."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.site import INTERWIKI_URL
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render

HEADING = "View interwiki data"


async def handle(ctx: SpecialContext) -> Response:
    site = ctx.site
    local = sorted(
        (prefix, url) for prefix, url in site.interwiki.items() if prefix not in site.languages
    )
    languages = [(code, INTERWIKI_URL.replace("{prefix}", code)) for code in sorted(site.languages)]
    return await render(ctx, "interwiki.html", HEADING, local=local, languages=languages)


PAGE = SpecialPage("Interwiki", HEADING, "wiki", handle)
