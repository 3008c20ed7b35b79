"""The views people triage with, in Debian's Chromium against a real `atrium serve`, with two
people in two browsers: Inbox and Recent conversations (both updated live), "Mark all as read",
"Mark as unread from here", read receipts (honouring the reader's `send_read_receipts`) and the
quick-reaction button.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.chat_browser import (
    Person,
    Site,
    browser,
    chromium_or_skip,
    people,
    start_site,
    wait_until,
)

pytestmark = pytest.mark.e2e
# Fixtures shared by the chat's browser modules.
__all__ = ["browser", "people"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    chromium_or_skip()
    with start_site(tmp_path_factory.mktemp("chat-triage")) as running:
        yield running


def post(site: Site, who: str, stream_id: int, topic: str, content: str) -> int:
    body = site.api[who].call(
        "POST", "/messages", type="stream", to=stream_id, topic=topic, content=content
    )
    return int(body["id"])


def open_view(person: Person, hash_: str) -> None:
    person.page.evaluate("h => { location.hash = h; }", hash_)
    person.page.wait_for_selector("#triage:not([hidden]) .triage-head", timeout=10_000)


def test_inbox_lists_unread_by_conversation_live(people: Any, site: Site) -> None:
    stream_id = site.stream("triage", "mo", "pat")
    mo, olive = people("mo"), people("olive")
    # Opened before the messages come (the first view would read them): they arrive live.
    open_view(mo, "#inbox")
    post(site, "olive", stream_id, "alpha", "first alpha")
    post(site, "olive", stream_id, "alpha", "second alpha")
    post(site, "pat", stream_id, "beta", "one beta")
    site.api["olive"].call("POST", "/messages", type="direct", to=[site.ids["mo"]], content="psst")
    page = mo.page
    group = page.locator(f'.inbox-group[data-stream-id="{stream_id}"]')
    wait_until(lambda: group.locator(".inbox-row").count() == 2)
    # And from the state a new page loads.
    page.reload()
    mo.wait_ready()
    assert group.locator(".inbox-heading .unread-count").inner_text() == "3"
    rows = group.locator(".inbox-row")
    assert rows.count() == 2
    assert rows.nth(0).inner_text().split() == ["alpha", "2"]
    dm = page.locator('.inbox-group[data-group="dm"] .inbox-row')
    assert dm.inner_text().split()[:2] == ["Olive", "Owner"]
    mo.shot("inbox")

    # Live: a message in a new topic, sent from Olive's browser.
    olive.go(f"#narrow/stream/{stream_id}-triage/topic/gamma")
    olive.page.keyboard.press("c")
    olive.page.fill("#compose-topic", "gamma")
    olive.page.fill("#compose-textarea", "gamma arrives")
    olive.page.press("#compose-textarea", "Enter")
    wait_until(lambda: rows.count() == 3)
    assert group.locator(".inbox-heading .unread-count").inner_text() == "4"

    # Collapsible.
    group.locator(".inbox-toggle").click()
    assert group.locator(".inbox-row").count() == 0
    assert group.locator(".inbox-toggle").get_attribute("aria-expanded") == "false"
    group.locator(".inbox-toggle").click()
    assert group.locator(".inbox-row").count() == 3

    # A row opens its conversation.
    group.locator(".inbox-link", has_text="beta").click()
    page.wait_for_selector("article.message", timeout=10_000)
    assert "topic/beta" in page.evaluate("location.hash")
    assert page.locator("#triage").is_hidden()
    assert mo.errors == [] and olive.errors == []


def test_recent_conversations_filter_and_live(people: Any, site: Site) -> None:
    stream_id = site.stream("recent", "mo", "pat")
    mo, pat = people("mo"), people("pat")
    open_view(mo, "#recent")
    post(site, "olive", stream_id, "planning", "plan one")
    post(site, "pat", stream_id, "planning", "plan two")
    post(site, "pat", stream_id, "lunch", "lunch?")
    page = mo.page
    page.reload()
    mo.wait_ready()
    table = page.locator(".recent-table")
    table.wait_for(timeout=10_000)
    planning = page.locator(".recent-row", has_text="planning")
    assert planning.locator(".recent-where").inner_text() == "recent"
    assert planning.locator(".recent-unread").inner_text() == "2"
    assert planning.locator(".recent-people").inner_text() == "Pat Member, Olive Owner"
    # Newest activity first.
    assert page.locator(".recent-row").first.locator(".recent-what").inner_text() == "lunch"
    mo.shot("recent-conversations")

    page.fill("#recent-filter", "plan")
    wait_until(lambda: page.locator(".recent-row").count() == 1)
    page.fill("#recent-filter", "")
    wait_until(lambda: page.locator(".recent-row").count() >= 2)

    # Live, from Pat's browser: a new conversation goes to the top.
    pat.go(f"#narrow/stream/{stream_id}-recent/topic/release")
    pat.page.keyboard.press("c")
    pat.page.fill("#compose-topic", "release")
    pat.page.fill("#compose-textarea", "shipping today")
    pat.page.press("#compose-textarea", "Enter")
    wait_until(
        lambda: page.locator(".recent-row").first.locator(".recent-what").inner_text() == "release"
    )
    assert page.locator(".recent-row").first.locator(".recent-unread").inner_text() == "1"

    page.check("#recent-unread-only")
    assert page.locator(".recent-row", has_text="planning").count() == 1
    site.api["mo"].call("POST", "/mark_topic_as_read", stream_id=stream_id, topic_name="planning")
    wait_until(lambda: page.locator(".recent-row", has_text="planning").count() == 0)
    assert mo.errors == [] and pat.errors == []


def test_mark_all_as_read(people: Any, site: Site) -> None:
    stream_id = site.stream("everything", "mo")
    mo = people("mo")
    open_view(mo, "#inbox")
    post(site, "olive", stream_id, "x", "unread one")
    page = mo.page
    wait_until(lambda: page.locator(".inbox-row").count() >= 1)
    page.click("#mark-all-read")
    page.click("#confirm-mark-all-read")
    page.locator(".inbox .feed-status", has_text="You have no unread messages.").wait_for(
        timeout=10_000
    )
    unread = site.api["mo"].call("POST", "/register")["unread_msgs"]
    assert unread["count"] == 0


def test_mark_as_unread_from_here(people: Any, site: Site) -> None:
    stream_id = site.stream("rereading", "mo")
    ids = [post(site, "olive", stream_id, "book", f"chapter {n}") for n in range(1, 5)]
    mo = people("mo")
    mo.go(f"#narrow/stream/{stream_id}-rereading/topic/book")
    page = mo.page
    # Reading the topic marks it read (once its messages are shown: the view before had none
    # unread either).
    third = page.locator(f'article.message[data-id="{ids[2]}"]')
    page.locator(f'article.message[data-id="{ids[3]}"]').wait_for()
    wait_until(lambda: page.locator("article.message.unread").count() == 0)
    third.hover()
    third.locator(".actions-button").click()
    page.get_by_role("menuitem", name="Mark as unread from here").click()
    wait_until(lambda: page.locator("article.message.unread").count() == 2)
    page.wait_for_timeout(1000)  # still unread while on screen
    assert page.locator("article.message.unread").count() == 2
    flags = site.api["mo"].call(
        "GET",
        "/messages",
        anchor=str(ids[0]),
        num_before=0,
        num_after=4,
        narrow=[{"operator": "stream", "operand": stream_id}],
    )["messages"]
    assert [("read" in m["flags"]) for m in flags] == [True, True, False, False]
    assert mo.errors == []


def test_read_receipts_respect_the_readers_setting(people: Any, site: Site) -> None:
    site.api["olive"].call("PATCH", "/realm", enable_read_receipts=True)
    stream_id = site.stream("receipts", "mo", "pat")
    message_id = post(site, "mo", stream_id, "seen", "did you see this?")
    for who in ("pat", "olive"):
        site.api[who].call("POST", "/messages/flags", messages=[message_id], op="add", flag="read")
    site.api["olive"].call("PATCH", "/settings", send_read_receipts=False)
    mo = people("mo")
    mo.go(f"#narrow/stream/{stream_id}-receipts/topic/seen")
    page = mo.page
    article = page.locator(f'article.message[data-id="{message_id}"]')
    article.hover()
    article.locator(".actions-button").click()
    page.get_by_role("menuitem", name="Read receipts").click()
    names = page.locator(".read-receipt-list li")
    names.first.wait_for(timeout=10_000)
    # Olive read it too, but has turned read receipts off.
    assert names.all_inner_texts() == ["Pat Member"]
    mo.shot("read-receipts")
    site.api["olive"].call("PATCH", "/settings", send_read_receipts=True)
    assert mo.errors == []


def test_quick_reaction_shows_for_the_other_person(people: Any, site: Site) -> None:
    stream_id = site.stream("reacting", "mo", "pat")
    message_id = post(site, "pat", stream_id, "news", "we shipped")
    mo, pat = people("mo"), people("pat")
    where = f"#narrow/stream/{stream_id}-reacting/topic/news"
    mo.go(where)
    pat.go(where)
    article = mo.page.locator(f'article.message[data-id="{message_id}"]')
    article.hover()
    article.locator(".quick-react").click()
    mo.page.locator(".emoji-choice[aria-label='+1']").click()
    theirs = pat.page.locator(f'article.message[data-id="{message_id}"] .reactions button')
    theirs.first.wait_for(timeout=10_000)
    assert theirs.first.inner_text().endswith("1")
    assert mo.errors == [] and pat.errors == []


def test_recent_conversations_are_ready_before_they_are_opened(people: Any, site: Site) -> None:
    stream_id = site.stream("ready", "mo")
    post(site, "olive", stream_id, "early", "already here")
    mo = people("mo")
    page = mo.page
    # The list is fetched in the background once the first view has painted.
    with page.expect_response(lambda r: "/json/messages?" in r.url and "num_before=400" in r.url):
        pass
    asked: list[str] = []
    page.on("request", lambda r: "/json/messages" in r.url and asked.append(r.url))
    open_view(mo, "#recent")
    assert page.locator(".recent-row", has_text="early").count() == 1
    assert asked == []


def test_triage_views_fit_a_phone(people: Any, site: Site) -> None:
    stream_id = site.stream("phone", "mo")
    mo = people("mo", 375)
    open_view(mo, "#inbox")
    post(site, "olive", stream_id, "a rather long topic name for a narrow screen", "hello")
    page = mo.page
    page.locator(".inbox-row").first.wait_for(timeout=10_000)
    fits = "() => { const t = document.getElementById('triage'); return t.scrollWidth <= t.clientWidth; }"
    assert page.evaluate(fits)
    mo.shot("inbox-375")
    open_view(mo, "#recent")
    page.locator(".recent-row").first.wait_for(timeout=10_000)
    assert page.evaluate(fits)
    mo.shot("recent-conversations-375")
