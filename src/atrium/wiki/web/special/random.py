"""`Special:Random`, `Special:RandomRedirect` and `Special:RandomRootpage` (each also as
`…/<namespace>`): a redirect to a random page of the main namespace or the one named, a page that
is not a redirect, a redirect (shown with `redirect=no`), or a page that is not a sub-page; and
`Special:RandomInCategory` (`…/<category>`): a form for a category and a redirect to one of its
members. The request's other parameters go along (`Special:Random?action=edit`), as MediaWiki's
do."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from urllib.parse import urlencode

from starlette.responses import RedirectResponse, Response

from atrium.wiki.reads.random_page import random_member, random_page
from atrium.wiki.titles import NS_CATEGORY, InvalidTitle, Title
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import Links, message_page, render

MAX_SKIP = 30  # SpecialRandomInCategory's $maxOffset
MAX_CATEGORY = 255


def _redirect(
    ctx: SpecialContext, title: Title, dropped: tuple[str, ...], extra: dict[str, str]
) -> Response:
    carried = [(k, v) for k, v in ctx.request.query_params.multi_items() if k not in dropped]
    carried = [(k, v) for k, v in carried if k != "title" and k not in extra]
    query = urlencode([*carried, *extra.items()])
    href = Links(ctx.site).page(title) + (f"?{query}" if query else "")
    response = RedirectResponse(href, status_code=302)
    response.headers["Cache-Control"] = "private, no-cache"
    return response


def _point() -> float:
    return secrets.randbelow(10**12) / 10**12


def _random(
    heading: str, nothing: Callable[[str], str], *, redirect: bool = False, root: bool = False
) -> Callable[[SpecialContext], Awaitable[Response]]:
    async def handle(ctx: SpecialContext) -> Response:
        ns = 0
        if ctx.subpage:
            found = ctx.site.namespaces.lookup(ctx.subpage.replace("_", " "))
            ns = found if found is not None and found >= 0 else 0
        point = _point()
        key = await ctx.db.read(
            lambda conn: random_page(conn, ns, point, redirect=redirect, root=root)
        )
        if key is None:
            label = ctx.site.namespaces.name(ns) or "(Main)"
            return await message_page(ctx, heading, nothing(label), 200, box="mw-message-box")
        extra = {"redirect": "no"} if redirect else {}
        return _redirect(ctx, Title(ns, key), (), extra)

    return handle


def _no_pages(label: str) -> str:
    return f"There are no pages in the following namespace: {label}."


def _category(ctx: SpecialContext, text: str) -> Title | None:
    """The category a reader typed, with or without its prefix (`Help:X` is `Category:Help:X`,
    as SpecialRandomInCategory reads it); None when it cannot be a title."""
    parser = ctx.site.parser
    try:
        title = parser.parse(text, NS_CATEGORY)
        if title.ns != NS_CATEGORY or title.interwiki:
            title = parser.parse(f"{parser.namespaces.prefix(NS_CATEGORY)}{text}")
    except InvalidTitle:
        return None
    if title.ns != NS_CATEGORY or title.interwiki or not title.dbkey:
        return None
    return Title(NS_CATEGORY, title.dbkey)


async def in_category(ctx: SpecialContext) -> Response:
    text = (ctx.subpage or ctx.param("wpcategory") or ctx.param("category")).strip()
    error = ""
    empty: Title | None = None
    if text:
        category = _category(ctx, text[:MAX_CATEGORY])
        if category is None:
            error = f'"{text[:MAX_CATEGORY]}" is not a valid category name.'
        else:
            point, skip, up = _point(), secrets.randbelow(MAX_SKIP + 1), secrets.randbelow(2) == 1
            found = await ctx.db.read(random_member, category.dbkey, point, skip, up)
            if found is not None:
                return _redirect(ctx, Title(*found), ("wpcategory", "category"), {})
            empty = category
    return await render(
        ctx, "randomincategory.html", "Random page in category", text=text[:MAX_CATEGORY],
        error=error, empty=empty,
    )  # fmt: skip


PAGE = SpecialPage(
    "Random", "Random page", "redirects", _random("Random page", _no_pages),
    aliases=("RandomPage",),
)  # fmt: skip
REDIRECT_PAGE = SpecialPage(
    "RandomRedirect", "Random redirect", "redirects",
    _random(
        "Random redirect",
        lambda label: f'There are no redirects in the namespace "{label}".',
        redirect=True,
    ),
)  # fmt: skip
ROOT_PAGE = SpecialPage(
    "RandomRootpage", "Random root page", "redirects",
    _random("Random root page", _no_pages, root=True),
)  # fmt: skip
IN_CATEGORY_PAGE = SpecialPage(
    "RandomInCategory", "Random page in category", "redirects", in_category
)
