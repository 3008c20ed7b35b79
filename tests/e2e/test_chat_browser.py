"""The chat's web client in a real browser: Debian's Chromium driven by Playwright against a real
`atrium serve` process. Two or three people sign in from separate browser contexts and see each
other's changes live.

These tests exercise the client and its session, not storage: they run on the embedded SQLite
backend only (the API tests cover PostgreSQL).
"""

from __future__ import annotations

import configparser
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.chat_browser import (
    CHROMIUM_ARGS,
    Api,
    Person,
    chromium_or_skip,
    wait_until,
)
from tests.e2e.server import atrium, atrium_env, running_server

pytestmark = pytest.mark.e2e

PASSWORD = "browser-pass-1"
USERS = {
    "olive": ("olive@e2e.test", "Olive Owner", "owner"),
    "mo": ("mo@e2e.test", "Mo Member", "member"),
    "pat": ("pat@e2e.test", "Pat Member", "member"),
}


@dataclass
class Site:
    url: str
    api: dict[str, Api]
    ids: dict[str, int]

    def stream(self, name: str, *members: str, private: bool = False) -> int:
        owner = self.api["olive"]
        owner.call(
            "POST",
            "/users/me/subscriptions",
            subscriptions=[{"name": name}],
            principals=[self.ids[m] for m in ("olive", *members)],
            invite_only=private,
        )
        return int(owner.call("GET", "/get_stream_id", stream=name)["stream_id"])


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    chromium_or_skip()
    data_dir = tmp_path_factory.mktemp("chat-browser")
    # A browser test does in seconds what a person does in an hour: more than 200 requests a
    # minute, and more than 5 sign-ins in 30 minutes, for one user. The client waits out a 429;
    # the tests should not have to (tests/chat/test_web_sessions.py checks the login limit).
    env = atrium_env(
        data_dir,
        None,
        ATRIUM_SERVICES="chat",
        ATRIUM_RATE_LIMIT_API="2000",
        ATRIUM_RATE_LIMIT_PASSWORD="1000",
    )
    atrium(env, "chat", "create-realm", "--name", "Browser Test")
    for email, name, role in USERS.values():
        args = ["--email", email, "--full-name", name, "--password", PASSWORD, "--role", role]
        atrium(env, "chat", "create-user", *args)
    with running_server(env) as server:
        api = {}
        for short, (email, _name, _role) in USERS.items():
            config = configparser.ConfigParser()
            config.read_string(atrium(env, "chat", "api-key", email))
            api[short] = Api(server.url, email, config["api"]["key"])
        users = api["olive"].call("GET", "/users")["members"]
        ids = {
            s: next(u["user_id"] for u in users if u["email"] == e)
            for s, (e, _, _) in USERS.items()
        }
        yield Site(server.url, api, ids)


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
def people(browser: Any, site: Site) -> Iterator[Any]:
    contexts: list[Any] = []

    def open_person(short: str | None = None, width: int = 1280, height: int = 800) -> Person:
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        person = Person(context.new_page())
        person.watch()
        if short is not None:
            person.sign_in(site.url, USERS[short][0], PASSWORD)
        return person

    yield open_person
    for context in contexts:
        context.close()


def stream_hash(stream_id: int, topic: str | None = None) -> str:
    base = f"#narrow/stream/{stream_id}-s"
    return base if topic is None else f"{base}/topic/{topic}"


def message(person: Person, text: str) -> Any:
    return person.page.locator("article.message", has_text=text)


def compose_to_stream(person: Person, stream: str, topic: str, text: str) -> None:
    page = person.page
    if page.locator("#compose-textarea").is_hidden():
        page.click("#new-topic-message")
    page.select_option("#compose-stream", label=stream)
    page.fill("#compose-topic", topic)
    page.fill("#compose-textarea", text)


def unread_in_sidebar(person: Person, stream_id: int) -> str:
    selector = f'li[data-stream-id="{stream_id}"] > .stream-row .unread-count'
    return str(person.page.evaluate("s => document.querySelector(s)?.textContent ?? '0'", selector))


# --- tests -----------------------------------------------------------------------------------


def test_sign_in_and_out(people: Any, site: Site) -> None:
    person = people()
    page = person.page
    page.goto(site.url + "/")
    assert page.title().startswith("Sign in")
    person.shot("login")
    page.fill("#login-email", USERS["mo"][0])
    page.fill("#login-password", "wrong-password")
    page.click("#login-submit")
    assert page.locator(".login-error").inner_text() == "Wrong email or password."
    page.fill("#login-password", PASSWORD)
    page.click("#login-submit")
    page.wait_for_selector("body[data-ready=true]")
    cookies = {c["name"]: c for c in page.context.cookies()}
    assert cookies["atrium_session"]["httpOnly"] and cookies["atrium_session"]["sameSite"] == "Lax"
    assert page.locator("#left-sidebar").get_by_text("All messages").is_visible()
    page.click("#logout")
    page.wait_for_selector("#login-email")
    page.goto(site.url + "/")
    assert page.locator("#login-email").is_visible()


def test_live_message_unread_and_mark_read(people: Any, site: Site) -> None:
    live = site.stream("live", "mo", "pat")
    quiet = site.stream("quiet", "pat")
    olive, mo, pat = people("olive"), people("mo"), people("pat")
    mo.go(stream_hash(live))
    pat.go(stream_hash(quiet))
    olive.go(stream_hash(live))
    assert unread_in_sidebar(pat, live) == "0"
    compose_to_stream(olive, "live", "greetings", "Hello from Olive's browser")
    olive.page.press("#compose-textarea", "Enter")
    started = time.monotonic()
    message(mo, "Hello from Olive's browser").wait_for(timeout=1000)
    assert time.monotonic() - started < 1.0
    wait_until(lambda: unread_in_sidebar(pat, live) == "1", timeout=1.0)
    assert pat.page.title().startswith("(1)")
    assert (
        message(olive, "Hello from Olive's browser").locator(".sender").inner_text()
        == "Olive Owner"
    )
    mo.shot("stream-feed")
    # Pat opens the stream: the message is seen, so it is marked read, on the server too.
    pat.page.click(f'li[data-stream-id="{live}"] .nav-link')
    message(pat, "Hello from Olive's browser").wait_for()
    wait_until(lambda: unread_in_sidebar(pat, live) == "0", timeout=5)
    unread = site.api["pat"].call(
        "GET",
        "/messages",
        anchor="newest",
        num_before=10,
        num_after=0,
        narrow=[{"operator": "stream", "operand": live}, {"operator": "is", "operand": "unread"}],
    )
    assert unread["messages"] == []


def open_actions(person: Person, text: str, item: str) -> None:
    row = message(person, text)
    row.hover()
    row.locator(".actions-button").click()
    person.page.get_by_role("menuitem", name=item).click()


def test_edit_move_resolve_delete_seen_live(people: Any, site: Site) -> None:
    ops = site.stream("ops", "mo")
    olive, mo = people("olive"), people("mo")
    site.api["olive"].call(
        "POST",
        "/messages",
        type="stream",
        to="ops",
        topic="alpha",
        content="first draft of the plan",
    )
    olive.go(stream_hash(ops))
    mo.go(stream_hash(ops))
    message(mo, "first draft of the plan").wait_for()

    open_actions(olive, "first draft of the plan", "Edit message")
    box = olive.page.locator("textarea.edit-box")
    box.fill("final plan")
    box.press("Enter")
    message(mo, "final plan").wait_for(timeout=3000)
    assert message(mo, "final plan").locator(".edit-marker").inner_text() == "EDITED"

    open_actions(olive, "final plan", "Move message or rename topic")
    olive.page.get_by_label("Topic", exact=True).last.fill("beta")
    olive.page.get_by_role("button", name="Move", exact=True).click()
    mo.page.locator(".recipient-bar .bar-topic", has_text="beta").first.wait_for(timeout=3000)

    open_actions(olive, "final plan", "Mark topic as resolved")
    mo.page.locator(".recipient-bar .bar-topic", has_text="✔ beta").first.wait_for(timeout=3000)

    open_actions(olive, "final plan", "View edit history")
    assert "first draft of the plan" in olive.page.locator(".history").inner_text()
    olive.page.keyboard.press("Escape")

    open_actions(olive, "final plan", "View message source")
    assert olive.page.locator("pre.source").inner_text() == "final plan"
    olive.page.keyboard.press("Escape")

    open_actions(olive, "final plan", "Delete message")
    olive.page.get_by_role("button", name="Delete", exact=True).click()
    message(mo, "final plan").wait_for(state="detached", timeout=3000)


def test_star_search_quote_and_keyboard(people: Any, site: Site) -> None:
    keys = site.stream("keys", "mo")
    for n in range(3):
        site.api["olive"].call(
            "POST",
            "/messages",
            type="stream",
            to="keys",
            topic="kb",
            content=f"keyboard line {n} xyzzy{n}",
        )
    mo = people("mo")
    mo.go(stream_hash(keys))
    page = mo.page
    message(mo, "keyboard line 2").wait_for()

    message(mo, "keyboard line 1").locator("button.star").click()
    message(mo, "keyboard line 1").locator("button.star.starred").wait_for()
    page.click("#nav-starred")
    message(mo, "keyboard line 1").wait_for()
    # The old narrow's messages stay until the new one is fetched.
    wait_until(lambda: page.locator("article.message").count() == 1, timeout=10)

    page.click("#search-input")
    page.fill("#search-input", "stream:keys xyzzy2")
    page.press("#search-input", "Enter")
    message(mo, "keyboard line 2").wait_for()
    wait_until(lambda: page.locator("article.message").count() == 1, timeout=10)
    assert page.locator("article.message .highlight").count() >= 1
    mo.shot("search")

    mo.go(stream_hash(keys, "kb"))
    wait_until(lambda: page.locator("article.message").count() == 3, timeout=10)
    page.locator("#feed").focus()
    selected = lambda: page.locator("article.message.selected").inner_text()  # noqa: E731
    page.keyboard.press("k")
    assert "keyboard line 1" in selected()
    page.keyboard.press("k")
    assert "keyboard line 0" in selected()
    page.keyboard.press("j")
    assert "keyboard line 1" in selected()
    page.keyboard.press("?")
    page.get_by_role("dialog", name="Keyboard shortcuts").wait_for()
    mo.shot("keyboard-help")
    page.keyboard.press("Escape")
    assert page.get_by_role("dialog").count() == 0
    page.keyboard.press("r")
    assert page.locator("#compose-topic").input_value() == "kb"
    assert page.evaluate("document.activeElement.id") == "compose-textarea"
    page.keyboard.press("Escape")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search-input"
    page.keyboard.press("Escape")
    page.locator("#feed").focus()
    page.keyboard.press("c")
    assert page.locator("#compose-textarea").is_visible()
    page.keyboard.press("Escape")

    open_actions(mo, "keyboard line 0", "Quote and reply")
    wait_until(lambda: "```quote" in page.locator("#compose-textarea").input_value())
    quoted = page.locator("#compose-textarea").input_value()
    assert "```quote\nkeyboard line 0 xyzzy0\n```" in quoted and "said" in quoted


def test_draft_restored_after_reload(people: Any, site: Site) -> None:
    site.stream("drafty", "mo")
    mo = people("mo")
    compose_to_stream(mo, "drafty", "notes", "an unfinished thought")
    wait_until(
        lambda: any(
            d["content"] == "an unfinished thought"
            for d in site.api["mo"].call("GET", "/drafts")["drafts"]
        )
    )
    mo.page.reload()
    mo.wait_ready()
    mo.page.click("#nav-drafts")
    card = mo.page.locator("li.draft", has_text="an unfinished thought")
    card.wait_for()
    mo.shot("drafts")
    card.get_by_role("button", name="Restore").click()
    assert mo.page.locator("#compose-textarea").input_value() == "an unfinished thought"
    assert mo.page.locator("#compose-topic").input_value() == "notes"


def test_scheduled_message_is_delivered(people: Any, site: Site) -> None:
    later = site.stream("later", "mo")
    mo = people("mo")
    mo.go(stream_hash(later))
    compose_to_stream(mo, "later", "soon", "this was scheduled")
    mo.page.click("#compose-later")
    when = mo.page.evaluate(
        "() => { const d = new Date(Date.now() + 4000);"
        " return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 19); }"
    )
    mo.page.fill("#schedule-at", when)
    mo.page.get_by_role("button", name="Schedule").click()
    mo.page.click("#nav-scheduled")
    mo.page.locator("li.scheduled", has_text="this was scheduled").wait_for()
    mo.shot("scheduled")
    mo.go(stream_hash(later))
    message(mo, "this was scheduled").wait_for(timeout=15_000)
    mo.page.click("#nav-scheduled")
    mo.page.get_by_text("No scheduled messages.").wait_for()


def test_direct_and_group_messages(people: Any, site: Site) -> None:
    olive, mo, pat = people("olive"), people("mo"), people("pat")
    olive.page.locator("#right-sidebar .user-name", has_text="Mo Member").click()
    olive.page.get_by_role("button", name="Send a direct message").click()
    olive.page.fill("#compose-textarea", "a private word")
    olive.page.press("#compose-textarea", "Enter")
    message(olive, "a private word").wait_for()
    mo.page.locator("#left-sidebar .dm-list", has_text="Olive Owner").wait_for(timeout=3000)
    mo.page.locator("#left-sidebar .dm-list a", has_text="Olive Owner").click()
    message(mo, "a private word").wait_for()
    mo.shot("direct-message")

    olive.page.keyboard.press("Escape")
    olive.page.locator("#feed").focus()
    olive.page.keyboard.press("x")
    for email in (USERS["mo"][0], USERS["pat"][0]):
        olive.page.fill("#compose-dm", email)
        olive.page.press("#compose-dm", "Enter")
    assert olive.page.locator(".chip").count() == 2
    olive.page.fill("#compose-textarea", "to both of you")
    olive.page.press("#compose-textarea", "Enter")
    for person in (mo, pat):
        person.page.locator(
            "#left-sidebar .dm-list a", has_text="Pat Member" if person is mo else "Mo Member"
        ).wait_for(timeout=3000)
        person.page.click("#nav-all")
        message(person, "to both of you").wait_for(timeout=3000)
        assert "You and" in person.page.locator(".dm-bar").last.inner_text()


def test_admin_creates_a_user_who_signs_in(people: Any, site: Site) -> None:
    olive = people("olive")
    page = olive.page
    page.click("#open-settings")
    page.click("#settings-tab-users")
    page.fill("#new-user-email", "newbie@e2e.test")
    page.fill("#new-user-name", "Nell Newbie")
    page.fill("#new-user-password", "newbie-pass-1")
    page.click("#create-user")
    page.locator(".admin-table td", has_text="newbie@e2e.test").wait_for(timeout=5000)
    olive.shot("admin-users")
    page.keyboard.press("Escape")
    newbie = people()
    newbie.sign_in(site.url, "newbie@e2e.test", "newbie-pass-1")
    assert newbie.page.evaluate("document.body.dataset.ready") == "true"
    newbie.page.locator("#right-sidebar .user-name", has_text="Olive Owner").wait_for()


XSS = {
    "stream": '<img src=x onerror="window.__xss=1">',
    "topic": "<script>window.__xss=2</script>",
    # Zulip's names refuse `>`, `"` and `@`: the payload that remains is an unclosed tag.
    "name": "<img src=x onerror=window.__xss=3",
    "content": (
        '<script>window.__xss=4</script> <img src=x onerror="window.__xss=5"> '
        '[click me](javascript:window.__xss=6) <a href="javascript:window.__xss=7">raw</a>'
    ),
}


def test_xss_payloads_are_inert(people: Any, site: Site) -> None:
    stream_id = site.stream(XSS["stream"], "mo", "pat")
    site.api["pat"].call("PATCH", "/settings", full_name=XSS["name"])
    site.api["pat"].call(
        "POST", "/messages", type="stream", to=stream_id, topic=XSS["topic"], content=XSS["content"]
    )
    mo = people("mo")
    dialogs: list[str] = []
    mo.page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    mo.go(stream_hash(stream_id))
    row = mo.page.locator("article.message").last
    row.wait_for()
    page = mo.page
    assert page.locator(".recipient-bar .bar-stream").last.inner_text() == "#" + XSS["stream"]
    assert page.locator(".recipient-bar .bar-topic").last.inner_text() == XSS["topic"]
    assert row.locator(".sender").inner_text() == XSS["name"]
    for link in row.locator(".message-content a").all():
        assert not (link.get_attribute("href") or "").lower().startswith("javascript:")
        link.click()
    row.locator(".sender").click()
    page.get_by_role("dialog").wait_for()
    page.keyboard.press("Escape")
    page.locator("#left-sidebar .nav-link", has_text=XSS["stream"]).wait_for()
    mo.shot("xss")
    assert page.evaluate("window.__xss") is None
    assert page.locator("script:not([type=module]):not([src])").count() == 0
    assert page.locator("[onerror], [onload], [onclick]").count() == 0
    assert dialogs == []


def test_no_console_errors_across_the_main_views(people: Any, site: Site) -> None:
    tour = site.stream("tour", "olive")
    site.api["olive"].call(
        "POST",
        "/messages",
        type="stream",
        to="tour",
        topic="code",
        content="Some **markdown**, `code`, :tada: and\n```python\nprint('hi')\n```\n@**Mo Member**",
    )
    olive = people("olive")
    page = olive.page
    olive.go(stream_hash(tour))
    message(olive, "Some markdown").wait_for()
    olive.shot("main")
    olive.page.click("#new-topic-message")
    olive.page.fill("#compose-textarea", "**preview** me :smile:")
    olive.page.click("#compose-preview")
    olive.page.locator(".compose-preview strong", has_text="preview").wait_for()
    olive.page.fill("#compose-textarea", "@Mo")
    olive.page.locator(".typeahead li", has_text="Mo Member").wait_for()
    olive.shot("compose-typeahead")
    olive.page.keyboard.press("Escape")
    olive.page.keyboard.press("Escape")
    for view in ("#nav-all", "#nav-mentions", "#nav-starred", "#nav-drafts", "#nav-scheduled"):
        page.click(view)
        page.wait_for_timeout(150)
    page.click("#open-settings")
    page.click("#settings-tab-display")
    page.select_option("#setting-theme", "dark")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    for tab in (
        "streams",
        "groups",
        "linkifiers",
        "playgrounds",
        "default_streams",
        "organization",
    ):
        page.click(f"#settings-tab-{tab}")
    page.keyboard.press("Escape")
    olive.go(stream_hash(tour))
    message(olive, "Some markdown").wait_for()
    olive.shot("main-dark")
    page.set_viewport_size({"width": 360, "height": 740})
    page.locator("#left-sidebar").wait_for(state="hidden")
    olive.shot("phone")
    page.click("#toggle-left")
    page.locator("#left-sidebar").wait_for(state="visible")
    olive.shot("phone-sidebar")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.click("#open-settings")
    page.click("#settings-tab-display")
    page.select_option("#setting-theme", "light")
    page.keyboard.press("Escape")
    assert olive.errors == []


def test_screenshot_dir_is_git_ignored() -> None:
    ignored = (Path(__file__).resolve().parents[2] / ".gitignore").read_text()
    assert "tests/e2e/output/" in ignored
    assert re.search(r"^tests/e2e/output/$", ignored, re.M)


# --- the optional endpoints: tested where the server has them -------------------------------


def need(person: Person, feature: str) -> None:
    content = person.page.get_attribute('meta[name="atrium-features"]', "content") or ""
    if feature not in content.split():
        pytest.skip(f"this server has no {feature} endpoint")


def test_reactions_live(people: Any, site: Site) -> None:
    emoji = site.stream("emoji", "mo")
    site.api["mo"].call(
        "POST", "/messages", type="stream", to="emoji", topic="r", content="react to me"
    )
    olive, mo = people("olive"), people("mo")
    need(olive, "reactions")
    olive.go(stream_hash(emoji))
    mo.go(stream_hash(emoji))
    open_actions(olive, "react to me", "Add a reaction")
    olive.page.get_by_role("option", name="tada").click()
    theirs = message(mo, "react to me").locator("button.reaction")
    theirs.wait_for(timeout=3000)
    assert theirs.inner_text().endswith("1") and theirs.get_attribute("aria-pressed") == "false"
    theirs.click()
    mine = message(olive, "react to me").locator("button.reaction")
    wait_until(lambda: mine.inner_text().endswith("2"), timeout=3)
    mine.click()
    wait_until(lambda: theirs.inner_text().endswith("1"), timeout=3)
    olive.shot("reactions")


def test_typing_is_shown(people: Any, site: Site) -> None:
    talk = site.stream("talk", "mo")
    site.api["mo"].call("POST", "/messages", type="stream", to="talk", topic="now", content="hi")
    olive, mo = people("olive"), people("mo")
    need(olive, "typing")
    mo.go(stream_hash(talk, "now"))
    compose_to_stream(olive, "talk", "now", "")
    olive.page.type("#compose-textarea", "typing away")
    mo.page.locator("#typing", has_text="Olive Owner is typing").wait_for(timeout=3000)


def test_presence_in_the_right_sidebar(people: Any, site: Site) -> None:
    olive = people("olive")
    need(olive, "presence")
    people("pat")
    # By id, not by name: the hostile-content test renames users.
    for short in ("pat", "olive"):
        user_id = site.api[short].call("GET", "/users/me")["user_id"]
        active = olive.page.locator(f'li.presence-active:has([data-user-id="{user_id}"])')
        active.wait_for(timeout=15000)


def test_topics_listed_under_the_stream(people: Any, site: Site) -> None:
    shelf = site.stream("shelf", "mo")
    for topic in ("books", "maps"):
        site.api["mo"].call(
            "POST", "/messages", type="stream", to="shelf", topic=topic, content="x"
        )
    mo = people("mo")
    need(mo, "topics")
    mo.page.click(f'li[data-stream-id="{shelf}"] .nav-link')
    topics = mo.page.locator(f'li[data-stream-id="{shelf}"] .topic-list')
    topics.get_by_text("maps").wait_for()
    topics.get_by_text("books").click()
    mo.page.locator(".recipient-bar .bar-topic", has_text="books").first.wait_for()
    assert mo.page.locator(".recipient-bar .bar-topic", has_text="maps").count() == 0


def test_attached_file_becomes_a_link(people: Any, site: Site, tmp_path: Path) -> None:
    site.stream("files", "mo", private=True)
    mo = people("mo")
    need(mo, "uploads")
    note = tmp_path / "notes.txt"
    note.write_text("attached text")
    compose_to_stream(mo, "files", "docs", "see ")
    mo.page.set_input_files("#compose-file", str(note))
    wait_until(lambda: "](/user_uploads/" in mo.page.locator("#compose-textarea").input_value())
    mo.page.press("#compose-textarea", "Enter")
    mo.page.click("#nav-all")
    link = message(mo, "see").locator("a", has_text="notes.txt")
    link.wait_for(timeout=3000)
    assert "/user_uploads/" in (link.get_attribute("href") or "")
    with mo.page.context.expect_page() as opened:
        link.click()
    download = opened.value
    download.wait_for_load_state()
    assert "attached text" in download.content()
    # Someone who cannot see the message cannot fetch the file.
    path = (link.get_attribute("href") or "").split("/user_uploads/", 1)[1]
    outsider = people("pat")
    status = outsider.page.evaluate(
        "p => fetch('/json/user_uploads/' + p).then(r => r.status)", path
    )
    assert status in (403, 404)
