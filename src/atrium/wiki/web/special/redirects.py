"""MediaWiki's redirecting Special pages (RedirectSpecialPage): MyPage, MyTalk, MyContributions,
MyUploads and AllMyUploads lead to the reader's own pages (an anonymous reader's are their
address's), MyLanguage/<page> to the page in the reader's language (the wiki's: the page itself),
ListAdmins and ListBots to the user list of that group, and Diff and PermanentLink to a
revision by its id (without one, a form asks for it)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.responses import RedirectResponse, Response

from atrium.wiki.site import MAIN_PAGE
from atrium.wiki.titles import NS_USER, NS_USER_TALK, Title
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import Links, render


def _to(
    where: Callable[[SpecialContext, Links], str],
) -> Callable[[SpecialContext], Awaitable[Response]]:
    async def handle(ctx: SpecialContext) -> Response:
        return RedirectResponse(where(ctx, Links(ctx.site)), status_code=302)

    return handle


def _own(ns: int) -> Callable[[SpecialContext, Links], str]:
    def where(ctx: SpecialContext, links: Links) -> str:
        name = ctx.reader.name.replace(" ", "_")
        sub = ctx.subpage.replace(" ", "_")
        title = ctx.title_of(f"{'User' if ns == NS_USER else 'User talk'}:{name}/{sub}")
        return links.page(title if sub and title else Title(ns, name))

    return where


def _my_language(ctx: SpecialContext, links: Links) -> str:
    """SpecialMyLanguage for a reader whose language is the wiki's: the page without a
    language code at its end (`Help:Intro/de` is `Help:Intro`), or the Main Page when it is not
    a page title."""
    text = ctx.subpage
    base, _, code = text.rpartition("/")
    if base and code in ctx.site.languages:
        text = base
    title = ctx.title_of(text) if text else None
    return links.page(title or Title(0, MAIN_PAGE.replace(" ", "_")))


def _revision(name: str, heading: str, param: str) -> SpecialPage:
    async def handle(ctx: SpecialContext) -> Response:
        text = (ctx.subpage or ctx.param("revid")).strip()
        first = text.split("/", 1)[0]
        if first.isdigit() and len(first) < 12:
            if param == "diff":
                other = text.split("/", 1)[1] if "/" in text else "prev"
                old, new = (other, first) if other.isdigit() else (first, other)
                href = Links(ctx.site).index(Title(-1, "Diff"), oldid=old, diff=new)
                href = href.replace("title=Special:Diff&", "")
            else:
                href = Links(ctx.site).index(Title(-1, "PermanentLink"), oldid=first)
                href = href.replace("title=Special:PermanentLink&", "")
            return RedirectResponse(href, status_code=302)
        error = "The revision ID must be a number." if text else ""
        return await render(ctx, "revision_form.html", heading, name=name, revid=text, error=error)

    return SpecialPage(name, heading, "redirects", handle)


def _page(
    name: str,
    heading: str,
    where: Callable[[SpecialContext, Links], str],
    listed: bool = True,
) -> SpecialPage:
    return SpecialPage(name, heading, "redirects", _to(where), listed=listed)


PAGES: tuple[SpecialPage, ...] = (
    _page("MyPage", "My user page", _own(NS_USER)),
    _page("MyTalk", "My talk page", _own(NS_USER_TALK)),
    _page(
        "MyContributions", "My contributions",
        lambda ctx, links: links.special("Contributions/" + ctx.reader.name),
    ),
    _page(
        "MyUploads", "My uploaded files",
        lambda ctx, links: links.special("ListFiles/" + ctx.reader.name),
    ),
    _page(
        "AllMyUploads", "All my uploaded files",
        lambda ctx, links: links.special("ListFiles/" + ctx.reader.name, ilshowall=1),
        listed=False,
    ),
    _page("MyLanguage", "My language", _my_language, listed=False),
    _page("ListAdmins", "List of administrators",
          lambda ctx, links: links.special("ListUsers/sysop")),
    _page("ListBots", "List of bots", lambda ctx, links: links.special("ListUsers/bot")),
    _revision("Diff", "Differences", "diff"),
    _revision("PermanentLink", "Permanent link", "oldid"),
)  # fmt: skip
