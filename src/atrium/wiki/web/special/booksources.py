"""`Special:BookSources` (`Special:BookSources/<ISBN>`): a form for an ISBN, a warning when its
check digit is wrong, and the places to look the book up: the wiki's own `Project:Book sources`
page (its `MAGICNUMBER` replaced by the ISBN) when it exists, else MediaWiki's default list."""

from __future__ import annotations

import re

from markupsafe import Markup
from starlette.responses import Response

from atrium.wiki.reads import page_view as reading
from atrium.wiki.titles import NS_PROJECT, Title
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render

HEADING = "Book sources"
# MessagesEn.php's $bookstoreList: label -> URL with `$1` for the ISBN.
BOOKSTORES = (
    ("BWB", "https://www.betterworldbooks.com/product/detail/-$1"),
    ("OpenLibrary", "https://openlibrary.org/isbn/$1"),
    ("Worldcat", "https://www.worldcat.org/search?q=isbn:$1"),
)
MAX_INPUT = 255  # an ISBN is 17 characters with its hyphens; the rest is noise
_NOT_ISBN = re.compile(r"[^0-9X]")


def clean_isbn(text: str) -> str:
    """The ISBN's digits and X, as SpecialBookSources::cleanIsbn keeps them."""
    return _NOT_ISBN.sub("", text)


def valid_isbn(text: str) -> bool:
    """True when the ISBN-10 or ISBN-13's check digit matches (isValidISBN)."""
    isbn = clean_isbn(text)
    if len(isbn) == 13:
        if "X" in isbn[:12]:
            return False
        total = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(isbn[:12]))
        return str((10 - total % 10) % 10) == isbn[12]
    if len(isbn) == 10:
        if "X" in isbn[:9]:
            return False
        check = sum(int(d) * (i + 1) for i, d in enumerate(isbn[:9])) % 11
        return ("X" if check == 10 else str(check)) == isbn[9]
    return False


async def handle(ctx: SpecialContext) -> Response:
    isbn = (ctx.subpage or ctx.param("isbn")).strip()[:MAX_INPUT]
    invalid = bool(isbn) and not valid_isbn(isbn)
    local_html: Markup | None = None
    sources: list[tuple[str, str]] = []
    if isbn:
        number = clean_isbn(isbn)
        page = Title(NS_PROJECT, "Book_sources")
        text = await ctx.db.read(reading.raw_text, page.ns, page.dbkey)
        if text is not None:
            # The digits and X alone go into the wikitext: nothing a reader typed is markup.
            rendered = await ctx.db.read_rendering(
                reading.render_text, ctx.site, page, text.replace("MAGICNUMBER", number)
            )
            local_html = Markup(rendered.html)
        else:
            sources = [(label, url.replace("$1", number)) for label, url in BOOKSTORES]
    return await render(
        ctx, "booksources.html", HEADING, isbn=isbn, invalid=invalid, local_html=local_html,
        sources=sources,
    )  # fmt: skip


PAGE = SpecialPage("BookSources", HEADING, "wiki", handle)
