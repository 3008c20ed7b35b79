"""The message feed keeps a bounded window of DOM nodes through a long history, in Debian's
Chromium against a real `atrium serve`: scrolling up through a few thousand messages and back
down never holds more than a window's worth, and dropped messages come back by anchor.

A module of its own: its history is written in-process (tests/e2e/seed.py) before its server
starts, and one Chromium serves its tests, each in a fresh context.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from atrium.settings import Settings
from tests.e2e.browser_server import BrowserServer, connected_browser
from tests.e2e.chat_browser import (
    PASSWORD,
    USERS,
    Person,
    Site,
    chromium_or_skip,
    start_site,
    wait_until,
)
from tests.e2e.seed import StreamHistory, create_stream_history

pytestmark = pytest.mark.e2e

MESSAGES = 1200  # three windows: enough to drop and reload at both ends
# The client keeps at most 400 messages; a little room for a batch arriving before the trim.
MOST_NODES = 450

FEED_SHAPE = """() => {
  const ids = [...document.querySelectorAll('#feed article.message[data-id]')]
    .map(a => Number(a.dataset.id));
  const feed = document.getElementById('feed');
  return {count: ids.length, first: ids[0] ?? null, last: ids[ids.length - 1] ?? null,
          beginning: Boolean(document.querySelector('#feed .feed-edge')),
          atBottom: feed.scrollHeight - feed.scrollTop - feed.clientHeight < 5};
}"""


def long_history(settings: Settings) -> StreamHistory:
    """MESSAGES messages from Olive in one topic, all read by Mo."""
    return create_stream_history(
        settings,
        USERS["olive"][0],
        "long history",
        [USERS["mo"][0]],
        "long",
        (f"line {n}" for n in range(MESSAGES)),
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    chromium_or_skip()
    with start_site(tmp_path_factory.mktemp("chat-window"), seed=long_history) as running:
        yield running


@pytest.fixture(scope="module")
def browser(browser_server: BrowserServer) -> Iterator[Any]:
    with connected_browser(browser_server) as connected:
        yield connected


@pytest.fixture
def person(site: Site, history: History, browser: Any) -> Iterator[Person]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    someone = Person(context.new_page())
    someone.watch()
    someone.sign_in(site.url, USERS["mo"][0], PASSWORD)
    yield someone
    context.close()


@dataclass
class History:
    stream_id: int
    ids: list[int]  # oldest first


@pytest.fixture(scope="module")
def history(site: Site) -> History:
    seeded: StreamHistory = site.seeded
    return History(seeded.stream_id, seeded.message_ids)


def shape(person: Person) -> dict[str, Any]:
    result: dict[str, Any] = person.page.evaluate(FEED_SHAPE)
    return result


def test_scrolling_a_long_history_keeps_the_dom_bounded(
    site: Site, history: History, person: Person
) -> None:
    ids = history.ids
    page = person.page
    person.go(f"#narrow/stream/{history.stream_id}-s/topic/long")
    wait_until(lambda: shape(person)["last"] == ids[-1], timeout=20)
    seen_counts = []
    # Up to the first message, one batch at a time.
    while True:
        now = shape(person)
        seen_counts.append(now["count"])
        assert now["count"] <= MOST_NODES, now
        if now["beginning"]:
            break
        page.evaluate("() => { document.getElementById('feed').scrollTop = 0; }")
        wait_until(
            lambda before=now["first"]: (
                shape(person)["first"] != before or shape(person)["beginning"]
            ),
            timeout=20,
        )
    top = shape(person)
    assert top["first"] == ids[0]
    # The newest messages left the DOM on the way up...
    assert top["last"] < ids[-1]
    assert page.locator("article.message", has_text="line 0").count() == 1
    # ...and come back on the way down.
    while True:
        now = shape(person)
        assert now["count"] <= MOST_NODES, now
        if now["last"] == ids[-1] and now["atBottom"]:
            break
        page.evaluate(
            "() => { const f = document.getElementById('feed'); f.scrollTop = f.scrollHeight; }"
        )
        if now["last"] == ids[-1]:
            wait_until(lambda: shape(person)["atBottom"], timeout=20)
        else:
            wait_until(lambda before=now["last"]: shape(person)["last"] != before, timeout=20)
    bottom = shape(person)
    assert bottom["first"] > ids[0]
    assert not bottom["beginning"]
    assert page.locator("article.message", has_text=f"line {MESSAGES - 1}").count() >= 1
    assert max(seen_counts) >= 300  # the window was really filled, not merely small
    assert person.errors == []


# Scroll the feed up by `dy` pixels as a reader would and report how far the message at the top
# of the view moved: by `dy` exactly unless something above it changed height unanchored. When
# the scroll reaches the top, older history loads, and it is measured once that is shown.
SCROLL_UP = """async (dy) => {
  const feed = document.getElementById('feed');
  const frames = (n) => new Promise((resolve) => {
    const next = () => (n-- <= 0 ? resolve() : requestAnimationFrame(next));
    next();
  });
  const first = () => feed.querySelector('article.message[data-id]').dataset.id;
  // Below the sticky recipient bar, which covers the feed's top edge.
  const edge = feed.getBoundingClientRect().top + 40;
  const seen = [...feed.querySelectorAll('article.message[data-id]')]
    .find((a) => a.getBoundingClientRect().top >= edge);
  const before = seen.getBoundingClientRect().top;
  const oldest = first();
  feed.scrollBy(0, -dy);
  await frames(3);
  if (feed.scrollTop < 200 && !document.querySelector('#feed .feed-edge')) {
    for (let i = 0; i < 600 && first() === oldest; i++) await frames(1);
    await frames(3);
  }
  const loaded = first() !== oldest;
  const now = feed.querySelector(`article.message[data-id="${seen.dataset.id}"]`);
  return {moved: now.getBoundingClientRect().top - before, loaded};
}"""


def test_scrolling_up_keeps_the_message_in_view_in_place(
    site: Site, history: History, person: Person
) -> None:
    ids = history.ids
    page = person.page
    person.go(f"#narrow/stream/{history.stream_id}-s/topic/long")
    wait_until(lambda: shape(person)["last"] == ids[-1], timeout=20)
    loads = 0
    steps = 0
    while loads < 2:
        steps += 1
        assert steps < 400, "older history never loaded"
        result = page.evaluate(SCROLL_UP, 170)
        # Messages drawn for the first time as they come into view, and older history put
        # above, leave the message the reader was looking at where the scroll put it.
        assert abs(result["moved"] - 170) <= 1, (steps, result)
        loads += result["loaded"]
    assert person.errors == []


# Where the selected message's top is below the feed's top edge, now and ten frames later.
SELECTED_TOP = """async () => {
  const feed = document.getElementById('feed');
  const offset = () => document.querySelector('#feed article.message.selected')
    .getBoundingClientRect().top - feed.getBoundingClientRect().top;
  const first = offset();
  for (let i = 0; i < 10; i++) await new Promise((resolve) => requestAnimationFrame(resolve));
  return [first, offset()];
}"""


def test_a_narrow_opens_with_its_first_unread_at_the_top(
    site: Site, history: History, person: Person
) -> None:
    ids = history.ids
    unread = ids[700:]
    mo = site.api["mo"]
    mo.call("POST", "/messages/flags", messages=unread, op="remove", flag="read")
    try:
        person.go(f"#narrow/stream/{history.stream_id}-s/topic/long")
        selected = "() => document.querySelector('#feed article.message.selected')?.dataset.id"
        wait_until(lambda: person.page.evaluate(selected) == str(unread[0]), timeout=20)
        first, later = person.page.evaluate(SELECTED_TOP)
        # At the top, below the recipient bar, whatever height the messages above it turn out
        # to have once the browser draws them; and it stays there.
        assert 0 <= first <= 40, first
        assert abs(later - first) <= 1, (first, later)
    finally:
        mo.call("POST", "/messages/flags", messages=unread, op="add", flag="read")
    assert person.errors == []
