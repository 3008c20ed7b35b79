"""Completion in the chat's compose box, in Debian's Chromium: direct-message recipients from
partial names and emails, topics from the chosen stream's topics, emoji ranked as Zulip ranks
them; and emoji drawn with the server's emoji font, which a page fetches only once it shows an
emoji. Names and topics carry markup, which must show as text.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from atrium.settings import DEBIAN_EMOJI_FONT
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

HOSTILE_NAME = "Olga <img src=x onerror=window.pwned=1 title=&amp;"
HOSTILE_TOPIC = '<img src=x onerror="window.pwned=1">'


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    chromium_or_skip()
    with start_site(tmp_path_factory.mktemp("chat-compose-completion")) as running:
        running.api["olive"].call(
            "POST",
            "/users",
            email="olga@e2e.test",
            full_name=HOSTILE_NAME,
            password="olga-pass-1",
        )
        yield running


def suggestions(person: Person, listbox: str) -> list[str]:
    box = person.page.locator(f"#{listbox}")
    box.wait_for()
    return box.get_by_role("option").all_inner_texts()


def not_pwned(person: Person) -> None:
    assert person.page.evaluate("() => window.pwned") is None
    assert not [e for e in person.errors if "pageerror" in e]


def test_dm_recipients_complete_from_partial_names_and_emails(people: Any, site: Site) -> None:
    mo = people("mo")
    page = mo.page
    page.keyboard.press("x")
    page.locator("#compose-dm").press_sequentially("oli")
    assert suggestions(mo, "compose-dm-suggestions")[0].startswith("Olive Owner")
    mo.shot("compose-recipient-completion")
    page.press("#compose-dm", "Enter")
    chips = page.locator("#compose .chip")
    wait_until(lambda: chips.count() == 1)
    assert chips.first.inner_text().startswith("Olive Owner")
    # An email's beginning; then a name markup can't escape, picked with the arrow keys.
    page.locator("#compose-dm").press_sequentially("pat@")
    assert suggestions(mo, "compose-dm-suggestions") == ["Pat Member pat@e2e.test"]
    page.press("#compose-dm", "Tab")
    page.locator("#compose-dm").press_sequentially("olg")
    options = suggestions(mo, "compose-dm-suggestions")
    assert options[0] == f"{HOSTILE_NAME} olga@e2e.test"
    page.press("#compose-dm", "Enter")
    wait_until(lambda: chips.count() == 3)
    assert HOSTILE_NAME in chips.nth(2).inner_text()
    # Already chosen people are not offered again; a name nobody has is refused.
    page.locator("#compose-dm").press_sequentially("olive")
    assert page.locator("#compose-dm-suggestions").is_hidden()
    page.fill("#compose-dm", "nobody-here")
    page.press("#compose-dm", "Enter")
    assert page.locator("#toast").inner_text() == "No one called nobody-here"
    page.fill("#compose-textarea", "hello all three")
    page.press("#compose-textarea", "Enter")

    def newest() -> dict[str, Any]:
        body = site.api["pat"].call("GET", "/messages", anchor="newest", num_before=1, num_after=0)
        # Pat has no message at all until this one arrives.
        return dict(body["messages"][0]) if body["messages"] else {"content": ""}

    wait_until(lambda: "hello all three" in newest()["content"])
    recipients = {r["email"] for r in newest()["display_recipient"]}
    assert recipients == {"mo@e2e.test", "olive@e2e.test", "pat@e2e.test", "olga@e2e.test"}
    not_pwned(mo)


def test_topics_complete_from_the_streams_topics(people: Any, site: Site) -> None:
    owner = site.api["olive"]
    owner.call(
        "POST",
        "/users/me/subscriptions",
        subscriptions=[{"name": "planning"}],
        principals=[site.ids["olive"], site.ids["mo"]],
    )
    for topic in ("release plans", "lunch", HOSTILE_TOPIC, "retro notes"):
        owner.call("POST", "/messages", type="stream", to="planning", topic=topic, content="hi")
    mo = people("mo")
    page = mo.page
    page.keyboard.press("c")
    page.select_option("#compose-stream", label="planning")
    page.locator("#compose-topic").press_sequentially("re")
    # Newest first, among those starting with what was typed.
    assert suggestions(mo, "compose-topic-suggestions") == ["retro notes", "release plans"]
    mo.shot("compose-topic-completion")
    page.press("#compose-topic", "ArrowDown")
    page.press("#compose-topic", "Enter")
    assert page.locator("#compose-topic").input_value() == "release plans"
    assert page.evaluate("() => document.activeElement.id") == "compose-textarea"
    page.fill("#compose-topic", "")
    page.locator("#compose-topic").press_sequentially("<img")
    assert suggestions(mo, "compose-topic-suggestions") == [HOSTILE_TOPIC]
    not_pwned(mo)


def test_emoji_completion_puts_popular_emoji_first(people: Any, site: Site) -> None:
    mo = people("mo")
    page = mo.page
    page.keyboard.press("c")
    page.fill("#compose-topic", "emoji")
    page.locator("#compose-textarea").press_sequentially("nice :thu")
    options = page.locator("#compose .typeahead:not(.field-typeahead) [role=option]")
    options.first.wait_for()
    texts = options.all_inner_texts()
    assert texts[0].endswith("thumbs_up") and texts[0].startswith("👍")
    assert texts.index(next(t for t in texts if t.endswith("thumb_tack"))) > 0
    page.press("#compose-textarea", "Enter")
    assert page.locator("#compose-textarea").input_value() == "nice :thumbs_up: "
    page.locator("#compose-textarea").press_sequentially(":tada")
    options.first.wait_for()
    assert options.first.inner_text() == "🎉 tada"


def test_emoji_use_the_servers_font_fetched_once_shown(people: Any, site: Site) -> None:
    if not DEBIAN_EMOJI_FONT.is_file():
        if os.environ.get("CI"):
            pytest.fail("fonts-noto-color-emoji is required in CI: make emoji-font")
        pytest.skip("fonts-noto-color-emoji not installed (make emoji-font)")
    pat = people("pat")
    page = pat.page
    site.api["olive"].call(
        "POST",
        "/users/me/subscriptions",
        subscriptions=[{"name": "emoji talk"}],
        principals=[site.ids["olive"], site.ids["pat"]],
    )
    stream_id = site.api["olive"].call("GET", "/get_stream_id", stream="emoji talk")["stream_id"]
    pat.go(f"#narrow/stream/{stream_id}-emoji-talk")
    status = """() => [...document.fonts]
        .filter((f) => f.family.replaceAll('"', '') === 'Atrium Emoji')
        .map((f) => f.status)"""
    page.wait_for_timeout(300)
    # Nothing on the page is an emoji yet: the font is declared, not loaded.
    assert page.evaluate(status) == ["unloaded"]
    site.api["olive"].call(
        "POST",
        "/messages",
        type="stream",
        to=stream_id,
        topic="party",
        content="well done :tada: :thumbs_up:",
    )
    emoji = page.locator("article.message .emoji").first
    emoji.wait_for()
    wait_until(lambda: page.evaluate(status) == ["loaded"])
    url = page.evaluate(
        "() => [...document.styleSheets].flatMap((s) => [...s.cssRules])"
        ".find((r) => r instanceof CSSFontFaceRule).style.getPropertyValue('src')"
    )
    path = url.split('"')[1]
    font = httpx.get(site.url + path)
    assert font.status_code == 200 and font.headers["content-type"] == "font/ttf"
    assert font.content == DEBIAN_EMOJI_FONT.read_bytes()
    # Only that one file is served there.
    other = path.rsplit("/", 1)[0] + "/passwd"
    assert httpx.get(site.url + other).status_code == 404
    # Drawn in colour: a system font without emoji would draw an outlined box in one colour.
    box = emoji.bounding_box()
    assert box is not None and box["width"] > 8
    shot = page.screenshot(clip=box)
    from io import BytesIO

    from PIL import Image

    colours = Image.open(BytesIO(shot)).convert("RGB").getcolors(maxcolors=100_000) or []
    assert len(colours) > 20
    pat.shot("emoji-font")
