"""Layout and wording bugs of the chat's web client, each reproduced in Debian's Chromium
against a real `atrium serve` as a new user met it: the administrators' Users table at 1366 px,
a search heading naming a user by id, emoji codes in the edit history, and recipient bars
overlapping at 375 px.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.chat_browser import (
    USERS,
    Site,
    browser,
    chromium_or_skip,
    people,
    start_site,
)

pytestmark = pytest.mark.e2e
# Fixtures shared by the chat's browser modules.
__all__ = ["browser", "people"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    chromium_or_skip()
    with start_site(tmp_path_factory.mktemp("chat-layout")) as running:
        yield running


def test_admin_users_table_fits_its_dialog_at_1366(people: Any, site: Site) -> None:
    olive = people("olive", 1366, 800)
    page = olive.page
    page.click("#open-settings")
    page.get_by_role("tab", name="Users").click()
    page.locator("#create-user").wait_for()
    dialog = page.locator(".dialog")
    sizes = dialog.evaluate("d => ({scroll: d.scrollWidth, client: d.clientWidth})")
    assert sizes["scroll"] <= sizes["client"], sizes
    button = page.locator("#create-user").bounding_box()
    box = dialog.bounding_box()
    assert button is not None and box is not None
    assert button["x"] + button["width"] <= box["x"] + box["width"]
    olive.shot("admin-users-1366")


def test_search_heading_names_the_sender(people: Any, site: Site) -> None:
    site.api["olive"].call(
        "POST", "/messages", type="direct", to=[site.ids["mo"]], content="a private hello"
    )
    mo = people("mo")
    page = mo.page
    mo.wait_ready()  # the search box answers once the client has started
    page.fill("#search-input", f"sender:{USERS['olive'][0]} is:private")
    page.press("#search-input", "Enter")
    page.locator("article.message", has_text="a private hello").wait_for(timeout=10_000)
    # The message shows in "All messages" too: wait for the search's own view to be drawn.
    page.wait_for_url("**/sender/**")
    page.locator("#narrow-bar", has_text=USERS["olive"][0]).wait_for(timeout=10_000)
    heading = page.inner_text("#narrow-bar")
    assert USERS["olive"][0] in heading, heading
    assert f"sender:{site.ids['olive']}" not in heading
    # The same after a reload, from the URL alone.
    page.reload()
    mo.wait_ready()
    page.locator("article.message", has_text="a private hello").wait_for(timeout=10_000)
    assert USERS["olive"][0] in page.inner_text("#narrow-bar")
    assert page.input_value("#search-input") == f"sender:{USERS['olive'][0]} is:private"


def test_edit_history_shows_emoji(people: Any, site: Site) -> None:
    stream_id = site.stream("edits", "mo")
    body = site.api["mo"].call(
        "POST", "/messages", type="stream", to=stream_id, topic="t", content="look :thumbs_up: here"
    )
    site.api["mo"].call("PATCH", f"/messages/{body['id']}", content="look :thumbs_up: there")
    mo = people("mo")
    mo.go(f"#narrow/stream/{stream_id}-edits/topic/t")
    article = mo.page.locator(f'article.message[data-id="{body["id"]}"]')
    article.hover()
    article.locator(".actions-button").click()
    mo.page.get_by_role("menuitem", name="View edit history").click()
    history = mo.page.locator(".history")
    history.wait_for(timeout=10_000)
    text = history.inner_text()
    assert ":thumbs_up:" not in text, text
    assert "👍" in text


def test_recipient_bars_do_not_overlap_at_375(people: Any, site: Site) -> None:
    one = site.stream("general", "mo")
    two = site.stream("random", "mo")
    for n in range(12):
        site.api["olive"].call(
            "POST", "/messages", type="stream", to=one, topic="welcome", content=f"welcome line {n}"
        )
    for n in range(12):
        site.api["olive"].call(
            "POST", "/messages", type="stream", to=two, topic="lunch", content=f"lunch line {n}"
        )
    mo = people("mo", 375, 740)
    page = mo.page
    mo.go("#all_messages")
    page.locator("article.message", has_text="lunch line 11").wait_for(timeout=10_000)
    overlaps = """() => {
      const feed = document.getElementById('feed');
      const bars = [...feed.querySelectorAll('.recipient-bar')].map(b => b.getBoundingClientRect())
        .filter(r => r.bottom > feed.getBoundingClientRect().top && r.height > 0);
      let worst = 0;
      for (let i = 0; i < bars.length; i++)
        for (let j = i + 1; j < bars.length; j++) {
          const overlap = Math.min(bars[i].bottom, bars[j].bottom) - Math.max(bars[i].top, bars[j].top);
          worst = Math.max(worst, overlap);
        }
      return worst;
    }"""
    feed = page.locator("#feed")
    # Scroll so that the second bar sits partway up under the first one's stuck place.
    for offset in range(0, 2000, 40):
        feed.evaluate("(f, y) => { f.scrollTop = y; }", offset)
        worst = page.evaluate(overlaps)
        assert worst <= 0.5, (offset, worst)
    page.locator("article.message", has_text="welcome line 5").scroll_into_view_if_needed()
    mo.shot("mobile-375-recipient-bars")
