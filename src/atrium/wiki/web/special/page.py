"""One entry of the Special pages table: the name, the handler, the section of
`Special:SpecialPages` it is listed in, and the right it needs when it is restricted."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.responses import Response

from atrium.wiki.web.special.context import SpecialContext

# Special:SpecialPages's sections, in its order (specialpages-group-*).
GROUPS = {
    "changes": "Recent changes and logs",
    "maintenance": "Maintenance reports",
    "pages": "Lists of pages",
    "login": "Login / create account",
    "users": "Users and rights",
    "highuse": "High use pages",
    "media": "Media reports and uploads",
    "wiki": "Wiki data and tools",
    "redirects": "Redirecting special pages",
    "pagetools": "Page tools",
    "other": "Other special pages",
}


@dataclass(frozen=True)
class SpecialPage:
    name: str
    title: str  # the heading and the link text in Special:SpecialPages
    group: str
    handler: Callable[[SpecialContext], Awaitable[Response]]
    restricted: str | None = None  # the right it needs; listed in bold, only to holders
    listed: bool = True  # shown on Special:SpecialPages (SpecialPage::isListed)
    aliases: tuple[str, ...] = ()  # other names it answers to (SpecialPageFactory's aliases)
