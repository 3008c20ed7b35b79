"""Zulip's keyboard shortcuts in the chat's web client, in Debian's Chromium: `?` lists them,
and each one does what the list says (navigation, scrolling, replying, message actions, menus,
formatting in the compose box). A second person's browser sees the reactions live. Topics carry
markup, which must stay text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

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

HOSTILE_TOPIC = '<img src=x onerror="window.pwned=1">'


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    chromium_or_skip()
    with start_site(tmp_path_factory.mktemp("chat-shortcuts")) as running:
        keys = running.stream("keys", "mo")
        running.stream("other keys", "mo")
        olive = running.api["olive"]
        for index in range(3):
            olive.call(
                "POST",
                "/messages",
                type="stream",
                to=keys,
                topic=HOSTILE_TOPIC,
                content=f"a{index}",
            )
        olive.call("POST", "/messages", type="stream", to=keys, topic="beta", content="b0")
        running.api["mo"].call(
            "POST", "/messages", type="stream", to=keys, topic="beta", content="mine"
        )
        yield running


def stream_id(site: Site, name: str) -> int:
    return int(site.api["olive"].call("GET", "/get_stream_id", stream=name)["stream_id"])


def hash_of(person: Person) -> str:
    return unquote(str(person.page.evaluate("() => location.hash")))


def selected(person: Person) -> str:
    return str(person.page.locator("article.message.selected .message-content").inner_text())


def press(person: Person, key: str) -> None:
    person.page.locator("#feed").focus() if key in {"j", "k"} else None
    person.page.keyboard.press(key)


def open_stream(person: Person, site: Site, name: str) -> None:
    person.go(f"#narrow/stream/{stream_id(site, name)}-s")
    person.page.locator("article.message").first.wait_for()
    person.page.locator("#feed").focus()


def test_help_lists_every_section(people: Any, site: Site) -> None:
    mo = people("mo")
    mo.page.keyboard.press("?")
    dialog = mo.page.get_by_role("dialog", name="Keyboard shortcuts")
    dialog.wait_for()
    titles = dialog.locator("h3").all_inner_texts()
    assert titles == [
        "The basics",
        "Search",
        "Scrolling",
        "Navigation",
        "Composing messages",
        "In the compose box",
        "Message actions",
        "Stream browser",
        "Menus",
    ]
    text = dialog.inner_text()
    for keys in (
        "Q",
        "Shift + P",
        "Ctrl + .",
        "Shift + A / Shift + D",
        "Ctrl + Shift + L",
        "Shift + M",
    ):
        assert keys in text
    mo.shot("keyboard-shortcuts")
    mo.page.keyboard.press("Escape")
    assert dialog.count() == 0


def test_navigation_keys(people: Any, site: Site) -> None:
    mo = people("mo")
    page = mo.page
    keys, other = stream_id(site, "keys"), stream_id(site, "other keys")
    open_stream(mo, site, "keys")
    page.keyboard.press("End")
    assert selected(mo) == "mine"
    page.keyboard.press("Home")
    assert selected(mo) == "a0"
    # S: the selected message's topic; again: back to its stream.
    page.keyboard.press("s")
    wait_until(lambda: "/topic/" in hash_of(mo))
    wait_until(lambda: HOSTILE_TOPIC in page.locator("#narrow-bar").inner_text())
    page.locator("article.message").first.wait_for()
    page.locator("#feed").focus()
    page.keyboard.press("s")
    wait_until(lambda: re.search(r"/stream/\d+-[^/]*$", hash_of(mo)) is not None)
    # The topic's messages are on screen until the stream's view replaces them.
    wait_until(lambda: HOSTILE_TOPIC not in page.locator("#narrow-bar").inner_text())
    page.locator("article.message").first.wait_for()
    page.locator("#feed").focus()
    page.keyboard.press("Home")
    page.keyboard.press("z")
    wait_until(lambda: "/near/" in hash_of(mo))
    # Shift+D / Shift+A: the next and previous stream (in the sidebar's order).
    page.keyboard.press("Shift+D")
    wait_until(lambda: hash_of(mo).startswith(f"#narrow/stream/{other}-"))
    page.keyboard.press("Shift+A")
    wait_until(lambda: hash_of(mo).startswith(f"#narrow/stream/{keys}-"))
    page.keyboard.press("a")
    wait_until(lambda: hash_of(mo) == "#all_messages")
    page.keyboard.press("*")
    wait_until(lambda: hash_of(mo) == "#narrow/is/starred")
    # P: the next conversation with unread direct messages (one arrives in the starred view).
    site.api["olive"].call("POST", "/messages", type="private", to=[site.ids["mo"]], content="psst")
    page.locator("#left-sidebar .dm-list .unread-count").wait_for()
    page.keyboard.press("p")
    wait_until(lambda: hash_of(mo).startswith(f"#narrow/dm/{site.ids['olive']}-"))
    page.locator("article.message", has_text="psst").first.wait_for()
    page.locator("#feed").focus()
    page.keyboard.press("Shift+P")
    wait_until(lambda: hash_of(mo) == "#narrow/is/dm")
    page.locator("#feed").focus()
    page.keyboard.press("d")
    wait_until(lambda: hash_of(mo) == "#drafts")
    page.keyboard.press("d")
    wait_until(lambda: hash_of(mo) != "#drafts")
    # Esc with nothing open: back to All messages.
    open_stream(mo, site, "keys")
    page.keyboard.press("Escape")
    wait_until(lambda: hash_of(mo) == "#all_messages")
    page.keyboard.press("w")
    assert page.evaluate("() => document.activeElement.getAttribute('aria-label')") == (
        "Filter people"
    )
    page.keyboard.press("Escape")
    # `q` filters the streams; Enter opens the first one shown, and the filter is gone.
    page.locator("#feed").focus()
    page.keyboard.press("q")
    assert page.evaluate("() => document.activeElement.id") == "sidebar-stream-filter"
    page.keyboard.type("other")
    streams = page.locator("#left-sidebar .stream-list > li")
    wait_until(lambda: streams.count() == 1)
    assert streams.first.inner_text().startswith("other keys")
    page.keyboard.press("Enter")
    wait_until(lambda: hash_of(mo).startswith(f"#narrow/stream/{stream_id(site, 'other keys')}-"))
    assert page.locator("#sidebar-stream-filter").input_value() == ""
    wait_until(lambda: streams.count() == 2)
    # Esc clears a filter without leaving the view.
    page.keyboard.press("q")
    page.keyboard.type("zzz-none")
    wait_until(lambda: streams.count() == 0)
    page.keyboard.press("Escape")
    wait_until(lambda: streams.count() == 2)
    page.keyboard.press("Control+k")
    assert page.evaluate("() => document.activeElement.id") == "search-input"
    page.keyboard.press("Escape")
    page.locator("#feed").focus()
    page.keyboard.press("g")
    page.get_by_role("dialog", name="Settings").wait_for()
    page.keyboard.press("Escape")
    assert page.evaluate("() => window.pwned") is None


def test_triage_and_reading_keys(people: Any, site: Site) -> None:
    mo = people("mo")
    page = mo.page
    open_stream(mo, site, "keys")
    page.locator("article.message").first.wait_for()
    page.locator("#feed").focus()
    page.keyboard.press("Shift+I")
    wait_until(lambda: hash_of(mo) == "#inbox")
    page.locator("#triage").wait_for()
    page.keyboard.press("t")
    wait_until(lambda: hash_of(mo) == "#recent")
    # Shift+U: the selected message (the last) is unread again, after all were read.
    site.api["mo"].call("POST", "/mark_all_as_read")
    open_stream(mo, site, "keys")
    page.locator("article.message").first.wait_for()
    wait_until(lambda: page.locator("#nav-all .unread-count").count() == 0)
    page.locator("#feed").focus()
    page.keyboard.press("End")
    page.keyboard.press("Shift+U")
    wait_until(lambda: page.locator("#nav-all .unread-count").count() == 1)
    assert page.locator("#nav-all .unread-count").inner_text() == "1"
    assert page.evaluate("() => window.pwned") is None


def test_message_actions_and_replies(people: Any, site: Site) -> None:
    mo, olive = people("mo"), people("olive")
    page = mo.page
    open_stream(mo, site, "keys")
    open_stream(olive, site, "keys")
    page.keyboard.press("Home")
    assert selected(mo) == "a0"
    # + reacts with 👍, seen live in the other browser; = takes the first reaction back.
    page.keyboard.press("+")
    first = olive.page.locator("article.message", has_text="a0").locator(".reaction")
    first.wait_for()
    assert first.inner_text().endswith("1")
    page.keyboard.press("=")
    first.wait_for(state="detached")
    page.keyboard.press("Control+s")
    wait_until(
        lambda: (
            len(
                site.api["mo"].call(
                    "GET",
                    "/messages",
                    anchor="newest",
                    num_before=20,
                    num_after=0,
                    narrow=[{"operator": "is", "operand": "starred"}],
                )["messages"]
            )
            == 1
        )
    )
    page.keyboard.press("Shift+M")
    wait_until(
        lambda: any(
            t["topic_name"] == HOSTILE_TOPIC and t["visibility_policy"] == 1
            for t in site.api["mo"].call("POST", "/register", fetch_event_types=["user_topic"])[
                "user_topics"
            ]
        )
    )
    page.keyboard.press("Shift+M")
    page.keyboard.press("u")
    page.get_by_role("dialog").get_by_text("olive@e2e.test").wait_for()
    page.keyboard.press("Escape")
    page.keyboard.press("i")
    page.get_by_role("menu", name="Message actions").wait_for()
    page.keyboard.press("Escape")
    page.keyboard.press(":")
    page.get_by_role("dialog", name="Add a reaction").wait_for()
    page.keyboard.press("Escape")
    page.keyboard.press("m")
    page.get_by_role("dialog", name="Move messages").wait_for()
    page.keyboard.press("Escape")
    page.keyboard.press("e")  # not mine: its source
    assert page.locator("pre.source").inner_text() == "a0"
    page.keyboard.press("Escape")
    # ←: edit my own last message here.
    page.keyboard.press("ArrowLeft")
    box = page.locator("textarea.edit-box")
    box.wait_for()
    assert box.input_value() == "mine"
    box.press("Escape")
    page.locator("#feed").focus()
    page.keyboard.press("Home")
    page.keyboard.press("@")
    textarea = page.locator("#compose-textarea")
    wait_until(lambda: textarea.input_value() == "@**Olive Owner** ")
    assert page.locator("#compose-topic").input_value() == HOSTILE_TOPIC
    page.keyboard.press("Escape")
    page.locator("#feed").focus()
    page.keyboard.press("Shift+R")
    page.locator("#compose .chip", has_text="Olive Owner").wait_for()
    page.keyboard.press("Escape")
    page.locator("#feed").focus()
    page.keyboard.press(">")
    wait_until(lambda: "```quote\na0\n```" in textarea.input_value())
    mo.shot("shortcut-quote")
    assert page.evaluate("() => window.pwned") is None


def test_compose_box_keys(people: Any, site: Site) -> None:
    mo = people("mo")
    page = mo.page
    keys = stream_id(site, "keys")
    open_stream(mo, site, "keys")
    page.keyboard.press("c")
    page.fill("#compose-topic", "formatting")
    textarea = page.locator("#compose-textarea")
    textarea.fill("bold")
    textarea.evaluate("t => t.select()")
    textarea.press("Control+b")
    assert textarea.input_value() == "**bold**"
    textarea.press("End")
    textarea.press_sequentially(" it")
    textarea.evaluate("t => t.setSelectionRange(t.value.length - 2, t.value.length)")
    textarea.press("Control+i")
    assert textarea.input_value() == "**bold** *it*"
    textarea.press("End")
    textarea.press_sequentially(" site")
    textarea.evaluate("t => t.setSelectionRange(t.value.length - 4, t.value.length)")
    textarea.press("Control+Shift+L")
    assert textarea.input_value() == "**bold** *it* [site](url)"
    assert textarea.evaluate("t => t.value.slice(t.selectionStart, t.selectionEnd)") == "url"
    textarea.press("Alt+p")
    page.locator(".compose-preview strong", has_text="bold").wait_for()
    textarea.press("Alt+p")
    # Ctrl+.: to the conversation being written to.
    page.goto(site.url + "/#all_messages")
    mo.wait_ready()
    page.keyboard.press("c")
    page.select_option("#compose-stream", label="keys")
    page.fill("#compose-topic", "beta")
    textarea.press("Control+.")
    wait_until(
        lambda: hash_of(mo).startswith(f"#narrow/stream/{keys}-") and "/topic/beta" in hash_of(mo)
    )
    # Ctrl+[ closes the compose box, keeping the draft.
    textarea.fill("keep me")
    textarea.press("Control+[")
    textarea.wait_for(state="hidden")
    wait_until(
        lambda: any(
            d["content"] == "keep me" for d in site.api["mo"].call("GET", "/drafts")["drafts"]
        )
    )


def test_stream_browser_keys(people: Any, site: Site) -> None:
    site.stream("extra keys")
    extra = stream_id(site, "extra keys")
    mo = people("mo")
    page = mo.page
    page.click("#browse-streams")
    page.fill("#stream-filter", "keys")
    page.press("#stream-filter", "ArrowDown")
    names = page.locator(".stream-browser-name")
    first = page.evaluate("() => document.activeElement.textContent")
    assert first == names.first.inner_text() == "extra keys"
    # Shift+S subscribes; the focus stays on the stream.
    page.keyboard.press("Shift+S")
    row = page.locator(f'.stream-browser-row[data-stream-id="{extra}"]')
    row.get_by_role("button", name="Unsubscribe from extra keys").wait_for()
    wait_until(lambda: page.evaluate("() => document.activeElement.textContent") == "extra keys")
    page.keyboard.press("ArrowDown")
    assert page.evaluate("() => document.activeElement.textContent") == "keys"
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    assert page.evaluate("() => document.activeElement.id") == "stream-filter"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    assert page.locator("#stream-browser-show").input_value() == "subscribed"
    page.locator(".stream-browser-name", has_text="extra keys").focus()
    page.keyboard.press("Shift+V")
    wait_until(lambda: hash_of(mo).startswith(f"#narrow/stream/{extra}-"))
    assert page.get_by_role("dialog").count() == 0
