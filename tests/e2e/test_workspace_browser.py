"""The workspace in a real browser: the top bar's Chat and Wiki links, one search finding
messages and pages from either client, and `[[wiki links]]` in messages, with hostile content
shown as text. Debian's Chromium through Playwright, against a real `atrium serve` running both
services (SQLite: the API tests cover the rest)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.chat_browser import (
    CHROMIUM_ARGS,
    PASSWORD,
    USERS,
    Person,
    Site,
    chromium_or_skip,
)
from tests.e2e.workspace_site import WIKI_EDITOR, start_workspace

pytestmark = pytest.mark.e2e

PAGES = {
    "Budget plan": "The budget for <script>alert('page')</script> next year.",
    "Help:Budget forms": "How to fill in the budget forms.",
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
def browser(site: Site) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_or_skip(), args=CHROMIUM_ARGS, headless=True
        )
        yield browser
        browser.close()


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
