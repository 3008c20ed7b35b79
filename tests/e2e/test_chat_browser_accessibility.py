"""Accessibility of the chat's web client, in Debian's Chromium: landmarks and names in the
browser's accessibility tree (sidebars, feed, compose box, dialogs), every control reached by
the Tab key with a visible focus indicator, focus kept inside an open dialog, and text contrast
at WCAG AA in the light and the dark theme. Names carry markup, which must stay text.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.accessibility import contrast_failures, tab_through, unnamed_controls
from tests.e2e.chat_browser import (
    PASSWORD,
    USERS,
    Person,
    Site,
    browser,
    chromium_or_skip,
    start_site,
    wait_until,
)

pytestmark = pytest.mark.e2e
# Fixtures shared by the chat's browser modules.
__all__ = ["browser"]

HOSTILE = '<img src=x onerror="window.pwned=1">'


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    chromium_or_skip()
    with start_site(tmp_path_factory.mktemp("chat-accessibility")) as running:
        general = running.stream("general", "mo", "pat")
        running.stream("muted one", "mo")
        olive = running.api["olive"]
        olive.call("PATCH", f"/streams/{general}", description=f"Everything {HOSTILE}")
        for content in (
            "Hello **everyone**, see https://example.com and `code`",
            "@**Mo Member** a mention :tada:",
            "> a quote\n\n```python\nprint('hi')  # a comment\n```",
        ):
            olive.call(
                "POST", "/messages", type="stream", to=general, topic=HOSTILE, content=content
            )
        running.api["mo"].call(
            "POST",
            "/users/me/subscriptions/properties",
            subscription_data=[
                {
                    "stream_id": running.stream("muted one", "mo"),
                    "property": "is_muted",
                    "value": True,
                }
            ],
        )
        yield running


@pytest.fixture
def mo(browser: Any, site: Site) -> Iterator[Person]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    person = Person(context.new_page())
    person.watch()
    person.sign_in(site.url, USERS["mo"][0], PASSWORD)
    general = site.api["olive"].call("GET", "/get_stream_id", stream="general")["stream_id"]
    person.go(f"#narrow/stream/{general}-general")
    person.page.locator("article.message").first.wait_for()
    yield person
    context.close()


def set_theme(person: Person, theme: str) -> None:
    scheme = {"light": 3, "dark": 2}[theme]
    person.page.evaluate(
        """async (scheme) => {
            await fetch('/json/settings', {
                method: 'PATCH',
                headers: {'X-CSRFToken': document.querySelector('meta[name=csrf-token]').content,
                          'Content-Type': 'application/x-www-form-urlencoded'},
                body: 'color_scheme=' + scheme,
            });
        }""",
        scheme,
    )
    # Polled from here: the page's CSP allows no eval, which a polled predicate would need.
    wait_until(
        lambda: person.page.evaluate("() => document.documentElement.dataset.theme") == theme
    )


# The dialogs to check: how to open each, and its name.
def open_dialogs(person: Person) -> Iterator[str]:
    page = person.page
    page.keyboard.press("Escape")
    page.click("#open-settings")
    for tab in page.get_by_role("dialog").get_by_role("tab").all():
        tab.click()
        yield f"Settings: {tab.inner_text()}"
    page.keyboard.press("Escape")
    page.click("#browse-streams")
    yield "Streams"
    page.keyboard.press("Escape")
    page.locator("#feed").focus()
    page.keyboard.press("?")
    yield "Keyboard shortcuts"
    page.keyboard.press("Escape")


def test_landmarks_and_names_in_the_accessibility_tree(mo: Person, site: Site) -> None:
    page = mo.page
    page.keyboard.press("c")
    tree = page.locator("body").aria_snapshot()
    for landmark in (
        "- banner",
        '- navigation "Streams and conversations"',
        "- main",
        '- complementary "Users"',
        '- log "Messages"',
        '- region "Compose a message"',
        "- search",
        '- textbox "Message"',
        '- combobox "Topic"',
    ):
        assert landmark in tree, landmark
    assert unnamed_controls(tree) == []
    for name in open_dialogs(mo):
        dialog = page.get_by_role("dialog").first
        dialog.wait_for()
        snapshot = dialog.aria_snapshot()
        assert snapshot.startswith("- dialog "), (name, snapshot[:80])
        assert unnamed_controls(snapshot) == [], name
    assert page.evaluate("() => window.pwned") is None


def test_every_control_reached_by_tab_with_a_visible_focus(mo: Person, site: Site) -> None:
    page = mo.page
    page.keyboard.press("c")
    page.locator("#compose-textarea").wait_for()
    page.evaluate("() => document.activeElement.blur()")
    count, missing, invisible = tab_through(page, "body")
    assert count > 30 and missing == set() and invisible == []
    for name in open_dialogs(mo):
        count, missing, invisible = tab_through(page, "[role=dialog]")
        assert count >= 1 and missing == set() and invisible == [], name
        # The focus stays in the open dialog.
        assert page.evaluate("() => !!document.activeElement.closest('[role=dialog]')"), name


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_text_contrast_meets_wcag_aa(mo: Person, site: Site, theme: str) -> None:
    page = mo.page
    set_theme(mo, theme)
    page.keyboard.press("c")
    failures = contrast_failures(page)
    assert failures == [], failures
    for name in open_dialogs(mo):
        failures = contrast_failures(page, "[role=dialog]")
        assert failures == [], (name, failures)
    mo.shot(f"accessibility-{theme}")
    set_theme(mo, "light")
