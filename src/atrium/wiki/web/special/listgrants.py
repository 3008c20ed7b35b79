"""`Special:ListGrants`: the grants a bot password can be given, each with the rights it allows
(`$wgGrantPermissions`), by their descriptions and names."""

from __future__ import annotations

import re

from starlette.responses import Response

from atrium.wiki.accounts.grants import GRANT_RIGHTS
from atrium.wiki.messages.store import CORE_MESSAGES
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render

HEADING = "Grants"
_INT = re.compile(r"\{\{int:([^{}|]+)\}\}")


def _message(key: str, fallback: str) -> str:
    """An English message as plain text, its `{{int:…}}` calls replaced by their messages."""
    text = CORE_MESSAGES.get(key, fallback)
    return _INT.sub(lambda m: CORE_MESSAGES.get(m.group(1).strip().lower(), m.group(1)), text)


async def handle(ctx: SpecialContext) -> Response:
    grants = [
        {
            "key": grant,
            "text": _message(f"grant-{grant}", grant),
            "rights": sorted((_message(f"right-{right}", right), right) for right in rights),
        }
        for grant, rights in GRANT_RIGHTS.items()
    ]
    return await render(ctx, "listgrants.html", HEADING, grants=grants)


PAGE = SpecialPage("ListGrants", HEADING, "users", handle)
