"""The workspace in a real browser: the top bar's Chat and Wiki links, one search finding
messages and pages from either client, and `[[wiki links]]` in messages, with hostile content
shown as text. Debian's Chromium through Playwright, against a real `atrium serve` running both
services (SQLite: the API tests cover the rest)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.browser_server import BrowserServer, connected_browser
from tests.e2e.chat_browser import (
    PASSWORD,
    USERS,
    Person,
    Site,
    chromium_or_skip,
    wait_until,
)
from tests.e2e.workspace_site import WIKI_EDITOR, start_workspace

pytestmark = pytest.mark.e2e

PAGES = {
    "Budget plan": "The budget for <script>alert('page')</script> next year.",
    "Help:Budget forms": "How to fill in the budget forms.",
    "Launch checklist": "Book the hall.",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    chromium_or_skip()
    with start_workspace(tmp_path_factory.mktemp("workspace-browser"), PAGES) as running:
        running.stream("planning", "mo", "pat")
        running.stream("board", "pat", private=True)
        olive = running.api["olive"]
        olive.call(
            "POST", "/messages", type="stream", to="planning", topic="budget",
            content="The budget is in [[Budget plan]]; see [[Missing page]]",
        )  # fmt: skip
        olive.call(
            "POST", "/messages", type="stream", to="board", topic="private budget",
            content="The board's budget is secret",
        )  # fmt: skip
        yield running


@pytest.fixture(scope="module")
def browser(site: Site, browser_server: BrowserServer) -> Iterator[Any]:
    with connected_browser(browser_server) as connected:
        yield connected


@pytest.fixture
def mo(browser: Any, site: Site) -> Iterator[Person]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    person = Person(context.new_page())
    person.watch()
    dialogs: list[str] = []
    person.page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    person.sign_in(site.url, USERS["mo"][0], PASSWORD)
    yield person
    assert dialogs == [], "a script from the content ran"
    context.close()


def test_chat_search_lists_pages_beside_messages(mo: Person, site: Site) -> None:
    page = mo.page
    assert page.locator("#atrium-nav-wiki").get_attribute("href") == "/wiki/Main_Page"
    page.fill("#search-input", "budget")
    page.press("#search-input", "Enter")
    page.wait_for_selector("#wiki-results:not([hidden]) .wiki-result", timeout=10_000)
    titles = page.locator("#wiki-results .wiki-result a").all_inner_texts()
    assert titles == ["Budget plan"]  # the main namespace, as MediaWiki searches by default
    snippet = page.locator("#wiki-results .wiki-result-snippet").first.inner_text()
    assert "<script>" in snippet  # text, not markup
    page.wait_for_selector("article.message", timeout=10_000)
    feed = page.locator("#feed").inner_text()
    assert "The budget is in" in feed
    assert "secret" not in feed
    # A narrow without text asks the wiki nothing.
    mo.go("#narrow/is/starred")
    page.wait_for_selector("#wiki-results[hidden]", state="attached", timeout=10_000)
    assert mo.errors == []


def test_wiki_links_in_messages_lead_to_the_wiki(mo: Person, site: Site) -> None:
    page = mo.page
    mo.go(
        f"#narrow/stream/{site.api['olive'].call('GET', '/get_stream_id', stream='planning')['stream_id']}-planning"
    )
    link = page.locator("article.message a.wiki-link", has_text="Budget plan")
    link.wait_for(timeout=10_000)
    assert link.get_attribute("title") == "Budget plan"
    missing = page.locator("article.message a.wiki-link.new", has_text="Missing page")
    assert missing.get_attribute("title") == "Missing page (page does not exist)"
    # One existing page linked: its card, built from text.
    card = page.locator("article.message .wiki-preview").first
    card.wait_for(timeout=10_000)
    assert card.locator(".wiki-preview-title").inner_text() == "Budget plan"
    assert "<script>alert('page')</script>" in card.locator(".wiki-preview-extract").inner_text()
    assert "by Editor" in card.locator(".wiki-preview-edit").inner_text()
    link.click()
    page.wait_for_url("**/wiki/Budget_plan", timeout=10_000)
    assert page.locator("#firstHeading").inner_text() == "Budget plan"
    # The wiki carries the same top bar, back to the chat.
    assert page.locator("#atrium-nav-chat").get_attribute("href") == "/"
    assert page.locator("#atrium-nav-wiki").get_attribute("aria-current") == "page"


def test_wiki_search_page_lists_messages_the_reader_may_read(mo: Person, site: Site) -> None:
    page = mo.page
    page.goto(site.url + "/wiki/Budget_plan")
    page.fill("#searchInput", "budget")
    page.press("#searchInput", "Enter")
    page.wait_for_selector(".searchresults", timeout=10_000)
    results = page.locator(".mw-search-results").inner_text()
    assert "Budget plan" in results
    chat = page.locator("#atrium-chat-results").inner_text()
    assert "planning > budget" in chat
    assert "private budget" not in chat and "secret" not in chat
    page.locator("#atrium-chat-results a", has_text="planning > budget").click()
    mo.wait_ready()
    page.wait_for_selector("article.message", timeout=10_000)
    assert "The budget is in" in page.locator("#feed").inner_text()


def wiki_edit(site: Site, title: str, text: str, summary: str) -> None:
    """An edit through api.php, as the wiki's Editor (what mwclient does)."""
    with httpx.Client(base_url=site.url, timeout=30) as client:
        api = "/w/api.php"
        token = client.get(
            api, params={"action": "query", "meta": "tokens", "type": "login", "format": "json"}
        ).json()
        done = client.post(
            api,
            data={
                "action": "login",
                "lgname": WIKI_EDITOR[0],
                "lgpassword": WIKI_EDITOR[1],
                "lgtoken": token["query"]["tokens"]["logintoken"],
                "format": "json",
            },
        ).json()
        assert done["login"]["result"] == "Success", done
        csrf = client.get(
            api, params={"action": "query", "meta": "tokens", "format": "json"}
        ).json()["query"]["tokens"]["csrftoken"]
        edited = client.post(
            api,
            data={
                "action": "edit",
                "title": title,
                "text": text,
                "summary": summary,
                "token": csrf,
                "format": "json",
            },
        ).json()
        assert edited["edit"]["result"] == "Success", edited


def test_an_administrator_posts_wiki_changes_to_a_stream(browser: Any, site: Site) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    olive = Person(context.new_page())
    olive.watch()
    try:
        olive.sign_in(site.url, USERS["olive"][0], PASSWORD)
        page = olive.page
        page.click("#open-settings")
        page.click("#settings-tab-wiki")
        page.select_option("#wiki-rule-stream", label="planning")
        page.select_option("#wiki-rule-scope", "page")
        page.fill("#wiki-rule-target", "budget plan")
        page.click("#wiki-rule-add")
        page.wait_for_selector("#wiki-feed-rules .wiki-feed-rule", timeout=10_000)
        assert "page Budget_plan → #planning" in page.locator("#wiki-feed-rules").inner_text()
        page.keyboard.press("Escape")
        wiki_edit(
            site, "Budget plan", "The budget, revised.", "<img src=x onerror=alert(1)> revised"
        )
        stream_id = site.api["olive"].call("GET", "/get_stream_id", stream="planning")["stream_id"]
        olive.go(f"#narrow/stream/{stream_id}-planning/topic/Budget.20plan")
        notice = page.locator("article.message", has_text="was edited by")
        notice.wait_for(timeout=20_000)
        assert "<img src=x onerror=alert(1)> revised" in notice.inner_text()
        diff = notice.locator("a", has_text="diff").get_attribute("href")
        assert diff is not None and "diff=" in diff
        page.goto(diff)
        assert "The budget, revised." in page.locator("#bodyContent").inner_text()
        assert olive.errors == []
    finally:
        context.close()


def test_compose_completes_wiki_titles(mo: Person, site: Site) -> None:
    page = mo.page
    if page.locator("#compose-textarea").is_hidden():
        page.click("#new-topic-message")
    page.select_option("#compose-stream", label="planning")
    page.fill("#compose-topic", "links")
    page.click("#compose-textarea")
    page.keyboard.type("read [[Budg")
    page.wait_for_selector(".typeahead li", timeout=10_000)
    assert page.locator(".typeahead li").first.inner_text().startswith("Budget plan")
    page.keyboard.press("Tab")
    assert page.locator("#compose-textarea").input_value() == "read [[Budget plan]] "
    page.keyboard.press("Enter")
    link = page.locator("article.message a.wiki-link", has_text="Budget plan").last
    link.wait_for(timeout=10_000)
    assert mo.errors == []


def _person(browser: Any) -> tuple[Any, Person]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    person = Person(context.new_page())
    person.watch()
    return context, person


def _send(person: Person, stream: str, topic: str, text: str) -> None:
    page = person.page
    if page.locator("#compose-textarea").is_hidden():
        page.click("#new-topic-message")
    page.select_option("#compose-stream", label=stream)
    page.fill("#compose-topic", topic)
    page.fill("#compose-textarea", text)
    page.press("#compose-textarea", "Enter")


def test_two_people_edit_discuss_and_find_across_chat_and_wiki(browser: Any, site: Site) -> None:
    """Pat edits a page; Mo sees the change posted in chat, opens the diff, discusses it in the
    page's topic from its Chat tab; Pat opens the page from the [[link]] in that topic, finds
    both in one search, and signs out of both at once."""
    olive = site.api["olive"]
    stream_id = olive.call("GET", "/get_stream_id", stream="planning")["stream_id"]
    olive.call("PATCH", "/atrium/workspace_settings", discussion_stream_id=stream_id)
    olive.call(
        "POST", "/atrium/wiki_feed/rules", stream_id=stream_id, scope="page",
        target="Launch checklist", events='["edit"]',
    )  # fmt: skip
    pat_context, pat = _person(browser)
    mo_context, mo = _person(browser)
    try:
        # Signed in once, on the chat's form: the wiki knows Pat too.
        pat.sign_in(site.url, USERS["pat"][0], PASSWORD)
        page = pat.page
        page.goto(site.url + "/w/index.php?title=Launch_checklist&action=edit")
        page.fill("#wpTextbox1", "Book the hall. Order the chairs.")
        page.fill("#wpSummary", "chairs")
        page.click("#wpSave")
        page.wait_for_url("**/wiki/Launch_checklist", timeout=10_000)
        assert "Order the chairs" in page.locator("#bodyContent").inner_text()

        mo.sign_in(site.url, USERS["mo"][0], PASSWORD)
        mo.go(f"#narrow/stream/{stream_id}-planning/topic/Launch.20checklist")
        notice = mo.page.locator("article.message", has_text="was edited by")
        notice.wait_for(timeout=20_000)
        assert "Pat Member" in notice.inner_text() and "chairs" in notice.inner_text()
        diff = notice.locator("a", has_text="diff").get_attribute("href")
        assert diff is not None and "diff=" in diff
        mo.page.goto(diff)
        assert "Order the chairs." in mo.page.locator("#bodyContent").inner_text()
        # The page's Chat tab opens its topic, with the count Mo may read.
        tab = mo.page.locator("#ca-chat a")
        assert tab.inner_text() == "Chat (1)"
        tab.click()
        mo.wait_ready()
        _send(mo, "planning", "Launch checklist", "Chairs agreed, see [[Launch checklist]]")
        mo.page.locator("article.message", has_text="Chairs agreed").wait_for(timeout=10_000)

        pat.page.goto(site.url + "/")
        pat.wait_ready()
        pat.go(f"#narrow/stream/{stream_id}-planning/topic/Launch.20checklist")
        said = pat.page.locator("article.message", has_text="Chairs agreed")
        said.wait_for(timeout=10_000)
        said.locator("a.wiki-link", has_text="Launch checklist").click()
        pat.page.wait_for_url("**/wiki/Launch_checklist", timeout=10_000)
        assert pat.page.locator("#firstHeading").inner_text() == "Launch checklist"
        assert pat.page.locator("#ca-chat a").inner_text() == "Chat (2)"

        # One search: the page and the message together.
        pat.page.goto(site.url + "/")
        pat.wait_ready()
        pat.page.fill("#search-input", "chairs")
        pat.page.press("#search-input", "Enter")
        pat.page.wait_for_selector("#wiki-results:not([hidden]) .wiki-result", timeout=10_000)
        titles = pat.page.locator("#wiki-results .wiki-result a").all_inner_texts()
        assert titles == ["Launch checklist"]
        pat.page.locator("article.message", has_text="Chairs agreed").wait_for(timeout=10_000)

        # Signed out once: out of the wiki too.
        pat.page.click("#logout")
        pat.page.wait_for_selector("#login-email")
        pat.page.goto(site.url + "/wiki/Launch_checklist")
        assert pat.page.locator("#pt-userpage").count() == 0
        assert mo.errors == []
        # Signed out, the client's calls still under way are refused (401), as they should be.
        assert [
            e
            for e in pat.errors
            if not e.startswith("HTTP 401") and "status of 401 (Unauthorized)" not in e
        ] == []
    finally:
        pat_context.close()
        mo_context.close()


def test_a_person_turns_on_watchlist_messages(browser: Any, site: Site) -> None:
    context, pat = _person(browser)
    try:
        pat.sign_in(site.url, USERS["pat"][0], PASSWORD)
        page = pat.page
        page.click("#open-settings")
        page.click("#settings-tab-notifications")
        box = page.locator("#setting-wiki-watchlist")
        page.wait_for_selector("#setting-wiki-watchlist:not([disabled])", timeout=10_000)
        assert not box.is_checked()
        box.check()
        wait_until(
            lambda: site.api["pat"].call("GET", "/atrium/notification_settings")[
                "wiki_watchlist_pages"
            ]
        )
        # Hers alone.
        assert not site.api["mo"].call("GET", "/atrium/notification_settings")[
            "wiki_watchlist_pages"
        ]
        assert pat.errors == []
    finally:
        context.close()
