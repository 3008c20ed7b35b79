"""The wiki worked through its pages in Debian's Chromium (Playwright) against `atrium serve`:
sign in, create a page from a red link, preview, save, edit a section, diffs in history, an old
revision, an edit conflict between two browsers, a blocked user, a protected page, and wikitext
XSS payloads that stay inert; no console errors. Screenshots go to tests/e2e/output/wiki_browser.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mwclient
import pytest

from tests.e2e.browser_server import BrowserServer, connected_browser
from tests.e2e.chat_browser import Person, chromium_or_skip, wait_until
from tests.e2e.seed import create_wiki_users, prepare_data_dir
from tests.e2e.server import atrium_env, running_server

pytestmark = pytest.mark.e2e

READY = "/w/api.php?action=query&meta=siteinfo&format=json"
SCREENSHOTS = Path(__file__).resolve().parent / "output" / "wiki_browser"
PASSWORDS = {
    "Admin": "admin-pass-123",
    "Alice": "alice-pass-456",
    "Bob": "bob-pass-789",
    "Carol": "carol-pass-012",
}


@dataclass
class Wiki:
    url: str
    admin: Any  # an mwclient Site signed in as Admin, to set the scene


@pytest.fixture(scope="module")
def wiki(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Wiki]:
    chromium_or_skip()
    data_dir = tmp_path_factory.mktemp("wiki-browser")
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
        admin.pages["Apple"].edit(
            "An '''apple'''. See [[Orchard]].\n\n== Taste ==\nSweet.\n\n== Colour ==\nRed.",
            summary="apple",
        )
        yield Wiki(server.url, admin)


@pytest.fixture(scope="module")
def browser(wiki: Wiki, browser_server: BrowserServer) -> Iterator[Any]:
    with connected_browser(browser_server) as connected:
        yield connected


@pytest.fixture
def people(browser: Any, wiki: Wiki) -> Iterator[Any]:
    contexts: list[Any] = []
    opened: list[Person] = []

    def open_person(name: str | None = None, width: int = 1280, height: int = 900) -> Person:
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        person = Person(context.new_page())
        person.watch()
        person.page.on(
            "dialog", lambda d: (person.errors.append(f"dialog: {d.message}"), d.dismiss())
        )
        opened.append(person)
        if name is not None:
            sign_in(person, wiki, name)
        return person

    yield open_person
    for context in contexts:
        context.close()
    # No page of any test raised a console error, a dialog or an HTTP error.
    assert [e for p in opened for e in p.errors] == []


def sign_in(person: Person, wiki: Wiki, name: str) -> None:
    page = person.page
    page.goto(wiki.url + "/wiki/Apple")
    page.click("#pt-login a")
    page.fill("#wpName1", name)
    page.fill("#wpPassword1", PASSWORDS[name])
    page.click("#wpLoginAttempt")
    page.wait_for_selector("#pt-userpage", timeout=20_000)
    assert page.inner_text("#pt-userpage") == name


def shot(person: Person, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    person.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def test_sign_in_create_from_red_link_preview_and_save(people: Any, wiki: Wiki) -> None:
    alice = people()
    alice.page.goto(wiki.url + "/wiki/Special:UserLogin")
    shot(alice, "login")
    sign_in(alice, wiki, "Alice")
    page = alice.page
    page.goto(wiki.url + "/wiki/Apple")
    shot(alice, "article")
    page.click("#mw-content-text a.new:has-text('Orchard')")
    page.wait_for_selector("#wpTextbox1")
    assert "Creating Orchard" in page.inner_text("#firstHeading")
    page.fill("#wpTextbox1", "Rows of '''trees'''.\n\n[[Category:Places]]")
    page.fill("#wpSummary", "new page")
    page.click("#wpPreview")
    page.wait_for_selector("#wikiPreview b")
    assert page.inner_text("#wikiPreview b") == "trees"
    shot(alice, "preview")
    page.click("#wpSave")
    page.wait_for_url("**/wiki/Orchard")
    assert page.inner_text("#mw-content-text b") == "trees"
    assert page.locator("#catlinks").count() == 1


def test_section_edit_history_diff_and_old_revision(people: Any, wiki: Wiki) -> None:
    bob = people("Bob")
    page = bob.page
    page.goto(wiki.url + "/wiki/Apple")
    page.click("h2:has-text('Colour') .mw-editsection a")
    page.wait_for_selector("#wpTextbox1")
    assert page.input_value("#wpTextbox1") == "== Colour ==\nRed."
    page.fill("#wpTextbox1", "== Colour ==\nRed or green.")
    # "Show changes" asks in the background: the page stays (a mark on it survives).
    page.evaluate("() => { window.stillHere = true; }")
    page.click("#wpDiff")
    page.wait_for_selector("#wikiDiff table.diff .diff-addedline")
    assert page.evaluate("() => window.stillHere === true")
    assert "Red or green." in page.inner_text("#wikiDiff")
    page.fill("#wpTextbox1", "== Colour ==\nRed or green, never blue.")
    page.click("#wpDiff")
    page.wait_for_selector("#wikiDiff :text('never blue')")
    assert page.locator("#wikiDiff").count() == 1
    assert page.evaluate("() => window.stillHere === true")
    page.fill("#wpTextbox1", "== Colour ==\nRed or green.")
    page.click("#wpSave")
    page.wait_for_url("**/wiki/Apple")
    assert "Red or green." in page.inner_text("#mw-content-text")
    page.click("#ca-history a")
    page.wait_for_selector("#pagehistory")
    shot(bob, "history")
    page.click("#pagehistory li >> nth=0 >> a.mw-history-histlinks-previous")
    page.wait_for_selector("table.diff")
    assert "Red or green." in page.inner_text("table.diff")
    assert page.locator("#mw-diff-ntitle1").count() == 1
    shot(bob, "diff")
    page.click("#mw-diff-otitle1 a")
    page.wait_for_selector("#mw-revision-info")
    assert "Red or green." not in page.inner_text("#mw-content-text")
    shot(bob, "old-revision")


def test_edit_conflict_between_two_browsers(people: Any, wiki: Wiki) -> None:
    wiki.admin.pages["Shared"].edit("First line.\nSecond line.", summary="start")
    alice, bob = people("Alice"), people("Bob")
    for person in (alice, bob):
        person.page.goto(wiki.url + "/w/index.php?title=Shared&action=edit")
        person.page.wait_for_selector("#wpTextbox1")
    # Bob's save must land in a later second than the revision both forms started from (the
    # conflict check compares timestamps to the second).
    start = bob.page.input_value("input[name=wpEdittime]")
    wait_until(lambda: time.strftime("%Y%m%d%H%M%S", time.gmtime()) > start, timeout=20)
    bob.page.fill("#wpTextbox1", "First line by Bob.\nSecond line.")
    bob.page.click("#wpSave")
    bob.page.wait_for_url("**/wiki/Shared")
    alice.page.fill("#wpTextbox1", "First line by Alice.\nSecond line.")
    alice.page.click("#wpSave")
    alice.page.wait_for_selector("#wpTextbox2", timeout=20_000)
    assert alice.page.inner_text("#firstHeading") == "Edit conflict: Shared"
    assert "by Bob" in alice.page.input_value("#wpTextbox1")
    assert "by Alice" in alice.page.input_value("#wpTextbox2")
    shot(alice, "edit-conflict")


def test_blocked_user_sees_the_notice(people: Any, wiki: Wiki) -> None:
    wiki.admin.api(
        "block", user="Carol", reason="Testing blocks", expiry="1 day",
        token=wiki.admin.get_token("csrf"),
    )  # fmt: skip
    carol = people("Carol")
    carol.page.goto(wiki.url + "/w/index.php?title=Apple&action=edit")
    carol.page.wait_for_selector("#mw-blocked-text")
    assert "Testing blocks" in carol.page.inner_text("#mw-blocked-text")
    assert carol.page.locator("#wpSave").count() == 0
    shot(carol, "blocked")


def test_protected_page_is_not_editable_by_a_member(people: Any, wiki: Wiki) -> None:
    wiki.admin.pages["Rules"].edit("The rules.", summary="rules")
    wiki.admin.api(
        "protect", title="Rules", protections="edit=sysop", token=wiki.admin.get_token("csrf")
    )
    alice = people("Alice")
    alice.page.goto(wiki.url + "/w/index.php?title=Rules&action=edit")
    alice.page.wait_for_selector("#mw-protected-text")
    assert alice.page.inner_text("#firstHeading") == "View source for Rules"
    assert alice.page.locator("#wpSave").count() == 0
    assert alice.page.get_attribute("#wpTextbox1", "readonly") is not None
    # The tabs offer "View source", not "Edit", on the page itself too.
    alice.page.goto(wiki.url + "/wiki/Rules")
    assert alice.page.inner_text("#ca-viewsource") == "View source"
    assert alice.page.locator("#ca-edit").count() == 0
    shot(alice, "protected-view-source-tab")


def test_xss_payloads_are_inert(people: Any, wiki: Wiki) -> None:
    bob = people("Bob")
    page = bob.page
    page.goto(wiki.url + "/w/index.php?title=Payloads&action=edit")
    page.fill(
        "#wpTextbox1",
        "<script>document.title='pwned'</script>\n"
        "<b onmouseover=\"document.title='pwned'\">hover</b>\n"
        "<img src=x onerror=\"document.title='pwned'\">\n"
        "[javascript:document.title='pwned' click]\n"
        "<span style=\"background: expression(document.title='pwned')\">styled</span>\n"
        "<a href=\"javascript:document.title='pwned'\">a link</a>",
    )
    page.click("#wpPreview")
    page.wait_for_selector("#wikiPreview")
    page.click("#wpSave")
    page.wait_for_url("**/wiki/Payloads")
    page.hover("#mw-content-text b")
    assert "pwned" not in page.title()
    handlers = page.evaluate(
        "() => [...document.querySelectorAll('#mw-content-text *')].flatMap(e =>"
        " [...e.attributes].map(a => a.name + '=' + a.value))"
        ".filter(s => /^on|javascript:|expression\\(/i.test(s))"
    )
    assert handlers == []
    assert page.locator("#mw-content-text script, #mw-content-text img").count() == 0
    # A hostile edit summary, shown on every page that lists edits, stays text too.
    page.goto(wiki.url + "/w/index.php?title=Payloads&action=edit")
    page.fill("#wpTextbox1", "Plain now.")
    page.fill("#wpSummary", "<img src=x onerror=\"document.title='pwned'\"><script>x()</script>")
    page.click("#wpSave")
    page.wait_for_url("**/wiki/Payloads")
    for path in (
        "/w/index.php?title=Payloads&action=history",
        "/w/index.php?title=Payloads&diff=cur&oldid=prev",
        "/wiki/Special:RecentChanges",
        "/wiki/Special:Contributions/Bob",
        "/w/index.php?title=Special:Search&search=Plain+now&fulltext=1",
    ):
        page.goto(wiki.url + path)
        assert "pwned" not in page.title(), path
        everywhere = page.evaluate(
            "() => [...document.querySelectorAll('body *')].flatMap(e =>"
            " [...e.attributes].map(a => a.name)).filter(n => /^on/i.test(n))"
        )
        assert everywhere == [], path
        assert page.locator("body script:not([src]), #content img[src='x']").count() == 0, path
    page.goto(wiki.url + "/w/index.php?title=Payloads&action=history")
    assert "onerror=" in page.inner_text("#pagehistory")  # shown as the text it is


def test_phone_width(people: Any, wiki: Wiki) -> None:
    reader = people(width=360, height=740)
    reader.page.goto(wiki.url + "/wiki/Apple")
    width = reader.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 360
    assert not reader.page.is_visible("#p-navigation")
    reader.page.click("#mw-sidebar-button")
    assert reader.page.is_visible("#p-navigation")
    shot(reader, "article-phone")


def test_search_suggests_goes_and_finds(people: Any, wiki: Wiki) -> None:
    wiki.admin.pages["Quince"].edit("A quince is a yellow fruit, close to the pear.", summary="q")
    reader = people()
    page = reader.page
    page.goto(wiki.url + "/wiki/Apple")
    page.fill("#searchInput", "Quin")
    page.wait_for_selector("#searchSuggestionsList .suggestion-title:text-is('Quince')")
    # Each suggestion shows the page's first sentence under its title.
    description = page.inner_text("#searchSuggestionsList .suggestion-description")
    assert description == "A quince is a yellow fruit, close to the pear."
    page.fill("#searchInput", "quince")
    page.press("#searchInput", "Enter")
    page.wait_for_url("**/wiki/Quince")
    assert page.inner_text("#firstHeading") == "Quince"
    page.goto(wiki.url + "/w/index.php?title=Special:Search&search=yellow+fruit&fulltext=1")
    page.wait_for_selector(".mw-search-results")
    assert page.inner_text(".mw-search-result-heading") == "Quince"
    assert page.locator(".searchmatch").count() >= 2
    shot(reader, "search")


def test_rollback_from_history_and_its_absence_for_members(people: Any, wiki: Wiki) -> None:
    wiki.admin.pages["Pond"].edit("Ducks swim here.", summary="pond")
    alice = people("Alice")
    for text in ("Ducks swim here. VANDAL", "Ducks swim here. VANDAL VANDAL"):
        alice.page.goto(wiki.url + "/w/index.php?title=Pond&action=edit")
        alice.page.fill("#wpTextbox1", text)
        alice.page.click("#wpSave")
        alice.page.wait_for_url("**/wiki/Pond")
    alice.page.goto(wiki.url + "/w/index.php?title=Pond&action=history")
    assert alice.page.locator(".mw-rollback-link").count() == 0
    admin = people("Admin")
    page = admin.page
    page.goto(wiki.url + "/w/index.php?title=Pond&action=history")
    link = page.locator("#pagehistory li >> nth=0 >> .mw-rollback-link a")
    assert link.inner_text() == "rollback 2 edits"
    shot(admin, "history-rollback")
    link.click()
    page.wait_for_selector("text=Action complete")
    assert "changed back to last revision by Admin" in page.inner_text("#mw-content-text")
    assert page.locator("table.diff .diff-deletedline").count() >= 1
    shot(admin, "rollback-done")
    page.goto(wiki.url + "/wiki/Pond")
    assert "VANDAL" not in page.inner_text("#mw-content-text")


def test_api_login_and_page_login_are_one_session(people: Any, wiki: Wiki) -> None:
    """A browser that logs in through api.php is signed in on the pages, and one signed in
    on Special:UserLogin is the API's caller."""
    api = wiki.url + "/w/api.php"
    bob = people()
    request = bob.page.context.request
    tokens = request.get(
        api, params={"action": "query", "meta": "tokens", "type": "login", "format": "json"}
    ).json()
    done = request.post(
        api,
        form={"action": "login", "lgname": "Bob", "lgpassword": PASSWORDS["Bob"],
              "lgtoken": tokens["query"]["tokens"]["logintoken"], "format": "json"},
    ).json()  # fmt: skip
    assert done["login"]["result"] == "Success"
    bob.page.goto(wiki.url + "/wiki/Apple")
    assert bob.page.inner_text("#pt-userpage") == "Bob"
    shot(bob, "signed-in-through-the-api")
    carol = people("Carol")
    info = carol.page.context.request.get(
        api, params={"action": "query", "meta": "userinfo", "format": "json"}
    ).json()
    assert info["query"]["userinfo"]["name"] == "Carol"


def test_wikitext_toolbar_wraps_and_links(people: Any, wiki: Wiki) -> None:
    wiki.admin.pages["Quince"].edit("A quince is a yellow fruit, close to the pear.", summary="q")
    alice = people("Alice")
    page = alice.page
    page.goto(wiki.url + "/w/index.php?title=Toolbar_test&action=edit")
    page.wait_for_selector(".wikiEditor-ui-toolbar")
    tools = page.eval_on_selector_all(
        ".wikiEditor-ui-toolbar > button", "b => b.map(x => x.dataset.tool)"
    )
    assert tools == ["bold", "italic", "link", "heading", "ulist", "file", "reference",
                     "signature", "table"]  # fmt: skip
    page.fill("#wpTextbox1", "plain word")
    page.eval_on_selector("#wpTextbox1", "t => t.setSelectionRange(6, 10)")
    page.click(".tool-bold")
    assert page.input_value("#wpTextbox1") == "plain '''word'''"
    page.eval_on_selector("#wpTextbox1", "t => t.setSelectionRange(0, 5)")
    page.click(".tool-link")
    page.fill("#wikieditor-toolbar-link-int-target", "Quin")
    page.wait_for_selector("#wikieditor-link-titles option[value='Quince']", state="attached")
    page.fill("#wikieditor-toolbar-link-int-target", "Quince")
    page.click(".tool-link-insert")
    assert page.input_value("#wpTextbox1") == "[[Quince|plain]] '''word'''"
    page.eval_on_selector("#wpTextbox1", "t => t.setSelectionRange(t.value.length, t.value.length)")
    page.click(".tool-reference")
    assert page.input_value("#wpTextbox1").endswith("<ref>Insert footnote text here</ref>")
    shot(alice, "edit-toolbar")
