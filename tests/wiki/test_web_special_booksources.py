"""`Special:BookSources` over HTTP: the ISBN form, the check-digit warning, MediaWiki's default
list of sources, the wiki's own `Project:Book sources` page with the ISBN put in, and hostile
input escaped."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import edit

from atrium.wiki.web.special.booksources import valid_isbn

pytestmark = pytest.mark.anyio

INVALID = "The given ISBN does not appear to be valid"


def test_isbn_check_digits() -> None:
    assert valid_isbn("978-0-306-40615-7") and valid_isbn("0-306-40615-2")
    assert valid_isbn("080442957X")
    assert not valid_isbn("978-0-306-40615-8") and not valid_isbn("0-306-40615-3")
    assert not valid_isbn("97X0306406157") and not valid_isbn("12345")


async def test_form_default_sources_and_bad_input(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    empty = await client.get("/wiki/Special:BookSources")
    assert empty.status_code == 200
    assert 'name="isbn"' in empty.text and "Search for book sources" in empty.text
    assert "openlibrary.org" not in empty.text and INVALID not in empty.text
    found = await client.get("/wiki/Special:BookSources/978-0-306-40615-7")
    assert found.status_code == 200 and INVALID not in found.text
    assert 'href="https://openlibrary.org/isbn/9780306406157" class="external">OpenLibrary' in (
        found.text
    )
    assert "worldcat.org/search?q=isbn:9780306406157" in found.text
    assert (await client.get("/wiki/Special:Booksources?isbn=0306406152")).status_code == 200
    wrong = await client.get("/wiki/Special:BookSources", params={"isbn": "978-0-306-40615-8"})
    assert wrong.status_code == 200 and INVALID in wrong.text
    hostile = await client.get(
        "/wiki/Special:BookSources", params={"isbn": '"><script>alert(1)</script>' + "9" * 900}
    )
    assert hostile.status_code == 200 and INVALID in hostile.text
    assert "<script>alert" not in hostile.text and "&#34;&gt;&lt;script&gt;" in hostile.text


async def test_project_book_sources_page_replaces_the_list(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await edit(
        wiki, "Project:Book sources",
        "Look in [https://library.example/find?isbn=MAGICNUMBER our library]. <script>x</script>",
    )  # fmt: skip
    page = await client.get("/wiki/Special:BookSources/0-306-40615-2")
    assert page.status_code == 200
    assert 'href="https://library.example/find?isbn=0306406152"' in page.text
    assert "openlibrary.org" not in page.text and "<script>x" not in page.text
