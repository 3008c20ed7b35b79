"""The wiki's page actions and Special pages in Debian's Chromium against `atrium serve`: an
administrator deletes, undeletes (picking a revision), moves and protects from the "More"
menu; a plain user sees only Move and is refused the rest; an anonymous reader sees no menu;
report and list Special pages show their empty state and survive bad parameters; titles and
summaries carrying HTML stay text. No console errors, no unexpected HTTP errors."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import mwclient
import pytest

from tests.e2e.browser_server import BrowserServer, connected_browser
from tests.e2e.chat_browser import Person, chromium_or_skip, wait_until
from tests.e2e.seed import create_wiki_users, prepare_data_dir
from tests.e2e.server import atrium_env, running_server

pytestmark = pytest.mark.e2e

READY = "/w/api.php?action=query&meta=siteinfo&format=json"
PASSWORDS = {"Admin": "admin-pass-123", "Alice": "alice-pass-456"}
HOSTILE = "<img src=x onerror=alert(1)>"


@dataclass
class Wiki:
    url: str
    admin: Any


@pytest.fixture(scope="module")
def wiki(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Wiki]:
    chromium_or_skip()
    data_dir = tmp_path_factory.mktemp("wiki-actions")
    env = atrium_env(data_dir, None, ATRIUM_SERVICES="wiki")
    # The accounts `atrium wiki create-user` would make, written in-process (tests/e2e/seed.py).
    settings = prepare_data_dir(data_dir, None, None)
    create_wiki_users(
        settings,
        [(name, pw, ["sysop"] if name == "Admin" else []) for name, pw in PASSWORDS.items()],
    )
    with running_server(env, READY) as server:
        admin = mwclient.Site(server.url.removeprefix("http://"), path="/w/", scheme="http")
        admin.login("Admin", PASSWORDS["Admin"])
        doomed = admin.pages["Doomed"]
        first = doomed.edit("== Part ==\nversion 0", summary=f"/* Part */ {HOSTILE}")
        admin.pages["Main Page"].edit("Welcome.", summary="start")
        admin.pages["Mover"].edit("moving", summary="start")
        admin.pages["Guarded"].edit("guard me", summary="start")
        # A second apart: MediaWiki picks deleted revisions by their timestamp.
        second = datetime.fromisoformat(first["newtimestamp"]).timestamp() + 1
        wait_until(lambda: time.time() >= second, timeout=5)
        doomed.edit("== Part ==\nversion 1", summary=f"/* Part */ {HOSTILE}")
        yield Wiki(server.url, admin)


@pytest.fixture(scope="module")
def browser(wiki: Wiki, browser_server: BrowserServer) -> Iterator[Any]:
    with connected_browser(browser_server) as connected:
        yield connected


@pytest.fixture
def people(browser: Any, wiki: Wiki) -> Iterator[Any]:
    contexts: list[Any] = []
    opened: list[Person] = []

    def open_person(name: str | None = None) -> Person:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        contexts.append(context)
        person = Person(context.new_page())
        person.watch()
        opened.append(person)
        if name is not None:
            page = person.page
            page.goto(wiki.url + "/wiki/Special:UserLogin")
            page.fill("#wpName1", name)
            page.fill("#wpPassword1", PASSWORDS[name])
            page.click("#wpLoginAttempt")
            page.wait_for_selector("#pt-userpage", timeout=20_000)
        return person

    yield open_person
    for context in contexts:
        context.close()
    assert [e for p in opened for e in p.errors] == []


def _expect_status(person: Person, status: int) -> None:
    """Forget the HTTP errors of the status a refusal is meant to answer."""
    console = f"console: Failed to load resource: the server responded with a status of {status}"
    person.errors[:] = [e for e in person.errors if not e.startswith((f"HTTP {status} ", console))]


def _menu(person: Person) -> list[str]:
    return person.page.eval_on_selector_all("#p-cactions li", "els => els.map(e => e.id)")


def test_delete_then_undelete_one_revision(people: Any, wiki: Wiki) -> None:
    admin = people("Admin")
    page = admin.page
    page.goto(wiki.url + "/wiki/Doomed")
    assert _menu(admin) == ["ca-delete", "ca-move", "ca-protect"]
    page.click("#p-cactions summary")
    page.click("#ca-delete a")
    page.fill("#wpReason", HOSTILE)
    page.click("#wpConfirmB")
    page.wait_for_selector("text=has been deleted")
    page.goto(wiki.url + "/wiki/Doomed")
    _expect_status(admin, 404)
    assert _menu(admin) == ["ca-undelete", "ca-protect"]
    page.click("#p-cactions summary")
    page.click("#ca-undelete a")
    page.wait_for_selector(".mw-undelete-revlist")
    # The summaries are text with a section link, not markup.
    assert page.locator(".mw-undelete-revlist img").count() == 0
    assert "→\u200ePart" in page.inner_text(".mw-undelete-revlist")
    boxes = page.locator(".mw-undelete-revlist input[type=checkbox]")
    assert boxes.count() == 2
    boxes.last.check()
    page.fill("#wpComment", "the first one")
    page.click("#mw-undelete-submit")
    page.wait_for_selector("text=has been undeleted")
    page.goto(wiki.url + "/wiki/Doomed")
    assert "version 0" in page.inner_text("#mw-content-text")
    page.goto(wiki.url + "/wiki/Special:Log/delete")
    text = page.inner_text("#mw-content-text")
    assert "undeleted page" in text and "deleted page" in text
    assert page.locator("#mw-content-text img").count() == 0


def test_move_and_protect_from_the_menu(people: Any, wiki: Wiki) -> None:
    admin = people("Admin")
    page = admin.page
    page.goto(wiki.url + "/wiki/Mover")
    page.click("#p-cactions summary")
    page.click("#ca-move a")
    page.fill("input[name=wpNewTitle]", "Moved here")
    page.click("#wpMove")
    page.wait_for_selector("text=has been moved to")
    page.goto(wiki.url + "/wiki/Guarded")
    page.click("#p-cactions summary")
    page.click("#ca-protect a")
    page.select_option("select[name='mwProtect-level-edit']", "sysop")
    page.click("#mw-Protect-submit")
    page.wait_for_url("**/wiki/Guarded")
    assert _menu(admin) == ["ca-delete", "ca-move", "ca-unprotect"]
    assert page.text_content("#ca-unprotect") == "Change protection"


def test_plain_user_and_anonymous_are_refused(people: Any, wiki: Wiki) -> None:
    alice = people("Alice")
    page = alice.page
    page.goto(wiki.url + "/wiki/Guarded")
    assert _menu(alice) == ["ca-move"]
    page.goto(wiki.url + "/w/index.php?title=Guarded&action=delete")
    assert page.inner_text("#firstHeading") == "Permission error"
    # A permission error answers 200, as MediaWiki's does: no HTTP error to forget.
    page.goto(wiki.url + "/wiki/Special:Undelete")
    assert page.inner_text("#firstHeading") == "Permission error"
    reader = people()
    reader.page.goto(wiki.url + "/wiki/Guarded")
    assert reader.page.locator("#p-cactions").count() == 0
    reader.page.goto(wiki.url + "/wiki/Special:DeletePage/Guarded")
    assert reader.page.inner_text("#firstHeading") == "Permission error"


REPORTS = ("DoubleRedirects", "BrokenRedirects", "UncategorizedImages", "UnusedCategories",
           "ListDuplicatedFiles", "MediaStatistics", "Mostimages", "Wantedtemplates")  # fmt: skip
LISTS = ("ListUsers?username=%3Cscript%3E", "ActiveUsers?limit=abc", "NewFiles?user=Nobody",
         "MIMESearch?mime=%3Cscript%3E", "FileDuplicateSearch?filename=%3Cx%3E",
         "AllMessages?prefix=zzz-none", "Undelete?prefix=%3Cx%3E", "Export",
         "ListGroupRights", "ShortPages?limit=-3&offset=abc",
         "DeletePage?target=%3Cx%3E", "ProtectedPages?type=%3Cx%3E&namespace=zz",
         "ProtectedTitles?level=%3Cx%3E", "Tags",
         "ComparePages?page1=%3Cx%3E&rev2=abc", "PermanentLink?revid=%3Cx%3E")  # fmt: skip


def test_special_pages_empty_state_and_bad_input(people: Any, wiki: Wiki) -> None:
    admin = people("Admin")
    page = admin.page
    for name in REPORTS:
        page.goto(f"{wiki.url}/wiki/Special:{name}?limit=zz&offset=-9")
        assert "There are no results for this report." in page.inner_text("#mw-content-text"), name
    for name in LISTS:
        response = page.goto(f"{wiki.url}/wiki/Special:{name}")
        assert response is not None and response.status == 200, name
        assert page.locator("#mw-content-text script").count() == 0, name
    # Related changes of no page list nothing: MediaWiki 1.39 answers that with a 404.
    response = page.goto(f"{wiki.url}/wiki/Special:RecentChangesLinked?target=%3Cx%3E")
    assert response is not None and response.status == 404
    assert page.inner_text("#firstHeading") == "Related changes"
    assert page.locator("#mw-content-text script").count() == 0
    _expect_status(admin, 404)
    page.goto(wiki.url + "/wiki/Special:SpecialPages")
    listing = page.inner_text("#mw-content-text")
    for shown in ("Orphaned pages", "Users list", "All messages", "View deleted pages"):
        assert shown in listing
    assert "DeletePage" not in listing


# More core pages: each empty or given bad input answers 200 with the page's own words.
MORE = (
    ("BookSources?isbn=%3Cx%3E123", "The given ISBN does not appear to be valid"),
    ("PagesWithProp?propname=%3Cx%3E&namespace=zz", "There are no results for this report."),
    ("TrackingCategories", "Pages with broken file links"),
    ("LinkSearch?target=www.*.example.org", "Wildcards may appear only at the start"),
    ("RandomRootpage/Help", "There are no pages in the following namespace: Help."),
    ("RandomInCategory?wpcategory=%3Cx%3E", "is not a valid category name."),
    ("Redirect", "Lookup:"),
    ("Interwiki", "Interlanguage prefixes"),
    ("ListGrants", "Basic rights"),
    ("PasswordPolicies", "Password must be at least 1 character long"),
    ("EditPage?page=%3Cx%3E", "empty or invalid"),
    ("BlankPage", "This page is intentionally left blank."),
)


def test_more_special_pages_empty_state_bad_input_and_forms(people: Any, wiki: Wiki) -> None:
    reader = people()
    page = reader.page
    for path, shown in MORE:
        response = page.goto(f"{wiki.url}/wiki/Special:{path}")
        assert response is not None and response.status == 200, path
        assert shown in page.inner_text("#mw-content-text"), path
        assert page.locator("#mw-content-text script").count() == 0, path
    page.goto(wiki.url + "/wiki/Special:BookSources")
    page.fill("#mw-input-isbn", "978-0-306-40615-7")
    page.click("#mw-special-booksources button")
    page.wait_for_selector("text=OpenLibrary")
    page.goto(wiki.url + "/wiki/Special:RandomInCategory")
    page.fill("#mw-input-wpcategory", "Nothing here")
    page.click("#mw-special-randomincategory button")
    page.wait_for_selector("text=There are no pages in the")
    page.goto(wiki.url + "/wiki/Special:Redirect")
    page.select_option("#mw-input-wptype", "user")
    page.fill("#mw-input-wpvalue", "999999")
    page.click("#mw-special-redirect button")
    page.wait_for_selector("text=Value not found")
    _expect_status(reader, 404)
    # A page id goes on to index.php?curid=, as MediaWiki's does.
    page.select_option("#mw-input-wptype", "page")
    page.fill("#mw-input-wpvalue", str(wiki.admin.pages["Main Page"].pageid))
    page.click("#mw-special-redirect button")
    page.wait_for_url("**/w/index.php?curid=*")
    assert page.inner_text("#firstHeading") == "Main Page"


def test_change_content_model_from_page_information(people: Any, wiki: Wiki) -> None:
    wiki.admin.pages["Model page"].edit('{"fruit": "apple", "count": 3}', summary="start")
    alice = people("Alice")
    page = alice.page
    # The empty form asks for a page; a title that cannot exist is refused in the form.
    response = page.goto(wiki.url + "/wiki/Special:ChangeContentModel")
    assert response is not None and response.status == 200
    page.fill("#pagetitle", HOSTILE)
    page.click("#mw-changecontentmodel-form button")
    page.wait_for_selector("#mw-input-pagetitle .error")
    assert page.locator("#mw-content-text img").count() == 0
    # From the page's information, as a reader finds it.
    page.goto(wiki.url + "/w/index.php?title=Model_page&action=info")
    page.click("#mw-pageinfo-content-model a")
    page.wait_for_selector("#model")
    assert page.input_value("#currentcontentmodel") == "wikitext"
    page.select_option("#model", "json")
    page.fill("#reason", HOSTILE)
    page.click("#mw-changecontentmodel-form button")
    page.wait_for_selector("text=The content type of")
    page.goto(wiki.url + "/wiki/Model_page")
    assert page.locator("#mw-content-text table.mw-json").count() == 1
    assert "apple" in page.inner_text("#mw-content-text table.mw-json")
    page.goto(wiki.url + "/w/index.php?title=Model_page&action=history")
    assert HOSTILE in page.inner_text("#pagehistory")
    assert page.locator("#pagehistory img").count() == 0
