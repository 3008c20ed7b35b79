"""`Special:ListGrants`: every grant a bot password can be given, with the rights it allows
(`$wgGrantPermissions`), as SpecialListGrants lists them; Special:BotPasswords links here."""

from __future__ import annotations

import re

from markupsafe import Markup
from starlette.responses import Response

from atrium.wiki.accounts.grants import GRANT_RIGHTS
from atrium.wiki.web.log_lines import message
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.msg import inline_html
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render, wikitext_html

# Right descriptions name protection levels through `{{int:…}}`, which inline rendering leaves.
_INT = re.compile(r"\{\{int:([^{}|]+)\}\}")

RIGHT = Markup(
    '<span class="listgrouprights-granted">{} <code>(<span class="mw-listgrants-right-name">{}'
    "</span>)</code></span>"
)


async def handle(ctx: SpecialContext) -> Response:
    grants: list[tuple[str, str, list[Markup]]] = []
    for grant, rights in GRANT_RIGHTS.items():
        # Each right: its description, then its name (listgrouprights-right-display), sorted.
        shown: list[Markup] = []
        for right in rights:
            text = _INT.sub(lambda m: message(m.group(1).strip()), message(f"right-{right}"))
            description = await inline_html(ctx, text)
            shown.append(RIGHT.format(description, right))
        grants.append((grant, message(f"grant-{grant}"), sorted(shown)))
    return await render(
        ctx, "listgrants.html", "Grants", grants=grants,
        # The summary links to the help page another message names.
        summary=Markup(await wikitext_html(ctx, message("listgrants-summary").replace(
            "{{MediaWiki:Listgrouprights-helppage}}", message("listgrouprights-helppage")))),
    )  # fmt: skip


PAGE = SpecialPage("ListGrants", "Grants", "users", handle)
