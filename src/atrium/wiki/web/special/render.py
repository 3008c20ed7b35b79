"""Rendering a Special page: its content template (autoescaped Jinja2, under
`templates/special/`) inside the wiki's skin, and MediaWiki's message pages (permission errors,
a bad token, an unknown page) with their wikitext messages rendered as MediaWiki renders them."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

import jinja2
from markupsafe import Markup
from starlette.responses import Response

from atrium.wiki.changes import ChangeError
from atrium.wiki.reads.page_view import link_states
from atrium.wiki.site import SCRIPT_PATH, Site
from atrium.wiki.titles import NS_SPECIAL, Title
from atrium.wiki.web.skin import render_page
from atrium.wiki.web.special.context import TOKEN_FIELD, SpecialContext
from atrium.wiki.web.texts import text
from atrium.wiki.wikitext.html.message import MessageHtml, link_targets

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("atrium.wiki.web", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_SAFE = ":/!$()*,;@~"


class Links:
    """URLs and names of titles, for templates."""

    def __init__(self, site: Site) -> None:
        self.site = site

    def name(self, title: Title) -> str:
        return self.site.parser.prefixed_text(title.ns, title.dbkey)

    def page(self, title: Title, **params: str | int) -> str:
        path = "/wiki/" + quote(self.site.parser.prefixed_dbkey(title.ns, title.dbkey), safe=_SAFE)
        shown = {k: v for k, v in params.items() if v not in ("", None)}
        return path + ("?" + urlencode(shown) if shown else "")

    def index(self, title: Title, **params: str | int) -> str:
        key = quote(self.site.parser.prefixed_dbkey(title.ns, title.dbkey), safe=_SAFE)
        shown = {k: v for k, v in params.items() if v not in ("", None)}
        return f"{SCRIPT_PATH}/index.php?title={key}" + ("&" + urlencode(shown) if shown else "")

    def special(self, name: str, **params: str | int) -> str:
        return self.page(Title(NS_SPECIAL, name), **params)

    def form_action(self, name: str) -> str:
        """Where a Special page's form posts: index.php, as MediaWiki's forms do."""
        return self.index(Title(NS_SPECIAL, name))

    def user(self, name: str) -> str:
        return self.page(Title(2, name.replace(" ", "_")))

    def file(self, name: str) -> Title:
        return Title(6, name.replace(" ", "_"))

    def talk(self, user: str) -> Title:
        return Title(3, user.replace(" ", "_"))

    def namespaces(self) -> list[tuple[int, str]]:
        """The namespaces a reader can pick in a form, "(Main)" for the main one."""
        names = self.site.namespaces
        return [(ns, names.name(ns) or "(Main)") for ns in names.ids() if ns >= 0]


def template(name: str) -> jinja2.Template:
    """A template under `templates/special/`."""
    return _ENV.get_template(f"special/{name}")


async def _skinned(
    ctx: SpecialContext, heading: str, body: str, status: int, subtitle: Markup | None = None
) -> Response:
    action = "view" if ctx.target is None else ctx.name.lower()
    return await render_page(
        ctx.request, ctx.site, ctx.db, "message.html",
        {"body_html": Markup(body), "subtitle_html": subtitle},
        title=ctx.title, heading=heading, action=action, status=status,
    )  # fmt: skip


def _body(ctx: SpecialContext, template: str, values: dict[str, Any]) -> str:
    return _ENV.get_template(f"special/{template}").render(
        links=Links(ctx.site),
        reader=ctx.reader,
        token_field=TOKEN_FIELD,
        token=ctx.token,
        **values,
    )


async def render(
    ctx: SpecialContext, template: str, heading: str, status: int = 200, **values: Any
) -> Response:
    """The content template rendered with `values`, the reader, the links and the form token."""
    return await _skinned(ctx, heading, _body(ctx, template, values), status)


async def render_with_subtitle(
    ctx: SpecialContext,
    template: str,
    heading: str,
    subtitle: Markup | None,
    status: int = 200,
    **values: Any,
) -> Response:
    """`render` with `subtitle` under the heading (OutputPage's subtitle: a backlink, say)."""
    return await _skinned(ctx, heading, _body(ctx, template, values), status, subtitle)


async def wikitext_html(ctx: SpecialContext, wikitext: str) -> str:
    """An interface message's wikitext as HTML, its links blue or red as the pages exist."""
    parser = ctx.site.parser
    targets = link_targets(parser, wikitext)
    known, redirects = await ctx.db.read(link_states, targets) if targets else (set(), set())
    return MessageHtml(parser, known, redirects=redirects).render(wikitext)


async def message_page(
    ctx: SpecialContext, heading: str, wikitext: str, status: int, box: str = "errorbox"
) -> Response:
    """A page that only says something (OutputPage::showErrorPage)."""
    text = await wikitext_html(ctx, wikitext)
    return await render(ctx, "message.html", heading, status, box=box, text=Markup(text))


async def permission_error(ctx: SpecialContext, doing: str, error: ChangeError) -> Response:
    """MediaWiki's "Permission error" page: what was refused and why. It answers 200, as
    MediaWiki's PermissionsError page does (OutputPage::showPermissionsErrorPage sets no
    status)."""
    reasons = [error, *error.more]
    intro = (
        f"You do not have permission to {doing}, for the following "
        f"{'reason' if len(reasons) == 1 else 'reasons'}:"
    )
    items = [Markup(await wikitext_html(ctx, each.text)) for each in reasons]
    return await render(
        ctx, "permission_error.html", "Permission error", 200, intro=intro, reasons=items
    )


def session_failure() -> str:
    """MediaWiki's `sessionfailure` as plain text, for a form shown again after a post without
    this session's token."""
    return text("sessionfailure")


async def bad_token(ctx: SpecialContext) -> Response:
    """A form posted without this session's token: MediaWiki's `sessionfailure` error page,
    which answers 200 as every ErrorPageError does; nothing was changed."""
    return await message_page(ctx, "Session failure", session_failure(), 200)


async def not_logged_in(ctx: SpecialContext, doing: str) -> Response:
    """MediaWiki's `exception-nologin`: the page needs a signed-in reader. A 200, as
    MediaWiki's UserNotLoggedIn error page is."""
    login = Links(ctx.site).special("UserLogin", returnto=ctx.request.url.path)
    return await message_page(
        ctx,
        "Not logged in",
        f"Please [{ctx.site.server}{login} log in] to {doing}.",
        200,
    )
