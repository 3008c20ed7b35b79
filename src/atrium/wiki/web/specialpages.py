"""The registry of special pages (`Special:Name/subpage`), which `views` dispatches to.

A module that draws special pages registers each with `@special_page("Name")`; `views` imports
those modules. A handler gets the request, the site, the database and the subpage (the text after
the first `/`, or None) and returns the whole response, usually through `skin.render_page`.
Names are matched case-insensitively, as MediaWiki's SpecialPageFactory does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from atrium.core.db import Database
from atrium.wiki.site import Site

Handler = Callable[[Request, Site, Database, str | None], Awaitable[Response]]


@dataclass(frozen=True)
class SpecialPage:
    name: str  # canonical, as linked: "UserLogin"
    handler: Handler
    # Listed on Special:SpecialPages under this group heading (MediaWiki's `specialpages-group-*`).
    group: str = "other"
    # Listed only for those with this right (MediaWiki's restricted special pages).
    restriction: str | None = None
    # Accepts POST (forms); a GET-only page answers POST with 405.
    post: bool = False


_PAGES: dict[str, SpecialPage] = {}


def special_page(
    name: str,
    *,
    aliases: tuple[str, ...] = (),
    group: str = "other",
    restriction: str | None = None,
    post: bool = False,
) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        page = SpecialPage(name, handler, group, restriction, post)
        for key in (name, *aliases):
            if key.lower() in _PAGES:
                raise RuntimeError(f"special page {key} registered twice")
            _PAGES[key.lower()] = page
        return handler

    return register


def lookup(dbkey: str) -> tuple[SpecialPage, str | None] | None:
    """The special page a `Special:` title's dbkey names, and its subpage."""
    name, slash, sub = dbkey.partition("/")
    page = _PAGES.get(name.replace(" ", "_").lower())
    if page is None:
        return None
    return page, (sub.replace("_", " ") if slash else None)


def all_pages() -> list[SpecialPage]:
    """Every registered special page once, by name."""
    return sorted({p.name: p for p in _PAGES.values()}.values(), key=lambda p: p.name)
