"""The chat's web client in a real browser: Debian's Chromium driven by Playwright against a real
`atrium serve` process. Two or three people sign in from separate browser contexts and see each
other's changes live.

These tests exercise the client and its session, not storage: they run on the embedded SQLite
backend only (the API tests cover PostgreSQL).
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.chat_browser import (
    PASSWORD,
    USERS,
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
    with start_site(tmp_path_factory.mktemp("chat-browser")) as running:
        yield running


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


def test_topic_feed_shows_only_its_own_new_messages(people: Any, site: Site) -> None:
    # The client matches new messages to a stream or topic narrow itself: the topic's name in
    # another case belongs; another topic, or the same name in another stream, does not.
    first = site.stream("matching one", "mo")
    second = site.stream("matching two", "mo")
    mo = people("mo")
    olive = site.api["olive"]
    olive.call("POST", "/messages", type="stream", to=first, topic="Plans", content="opening")
    mo.go(stream_hash(first, "plans"))
    message(mo, "opening").wait_for()
    for stream_id, topic, text in (
        (first, "other", "another topic"),
        (second, "plans", "another stream"),
        (first, "PLANS", "same topic, other case"),
    ):
        olive.call("POST", "/messages", type="stream", to=stream_id, topic=topic, content=text)
    message(mo, "same topic, other case").wait_for(timeout=5000)
    assert message(mo, "another topic").count() == 0
    assert message(mo, "another stream").count() == 0


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
    # The stream's feed also shows the message until the starred one replaces it: wait for
    # the view to hold the starred message and none of the others.
    feed = page.locator("article.message")
    wait_until(
        lambda: (
            feed.filter(has_text="keyboard line").count() == 1
            and feed.filter(has_text="keyboard line 1").count() == 1
        ),
        timeout=15,
    )
    message(mo, "keyboard line 1").wait_for()

    page.click("#search-input")
    page.fill("#search-input", "stream:keys xyzzy2")
    page.press("#search-input", "Enter")
    wait_until(lambda: page.locator("article.message .highlight").count() >= 1, timeout=15)
    message(mo, "keyboard line 2").wait_for()
    assert page.locator("article.message").count() == 1
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
    # At most 60 characters.
    "status": "<script>window.__xss=8</script><img src=x onerror=__xss=9>",
}
# File names: two are attached in the browser (a file name cannot hold `/`), one through the API.
XSS_FILES = ("<img src=x onerror=window.__xss=10>.txt", "javascript:window.__xss=11.txt")
XSS_API_FILE = "<script>window.__xss=12</script>.txt"


def upload_as(site: Site, short: str, name: str, body: bytes) -> str:
    api = site.api[short]
    response = httpx.post(
        site.url + "/api/v1/user_uploads",
        auth=(api.email, api.key),
        files={"file": (name, body, "text/plain")},
        timeout=30,
    )
    answer = response.json()
    assert answer["result"] == "success", answer
    return str(answer.get("url") or answer["uri"])


def compose_uploads(person: Person) -> int:
    return str(person.page.locator("#compose-textarea").input_value()).count("/user_uploads/")


def assert_inert(page: Any, dialogs: list[str]) -> None:
    assert page.evaluate("window.__xss") is None
    assert page.locator("script:not([type=module]):not([src])").count() == 0
    assert page.locator("[onerror], [onload], [onclick]").count() == 0
    for link in page.locator("a[href]").all():
        assert not (link.get_attribute("href") or "").strip().lower().startswith("javascript:")
    assert dialogs == []


def test_xss_payloads_are_inert(people: Any, site: Site) -> None:
    stream_id = site.stream(XSS["stream"], "mo", "pat")
    site.api["pat"].call("PATCH", "/settings", full_name=XSS["name"])
    site.api["pat"].call("POST", "/users/me/status", status_text=XSS["status"])
    site.api["pat"].call(
        "POST", "/messages", type="stream", to=stream_id, topic=XSS["topic"], content=XSS["content"]
    )
    mo = people("mo")
    dialogs: list[str] = []
    mo.page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    mo.go(stream_hash(stream_id))
    row = message(mo, "click me")
    row.wait_for()
    page = mo.page
    assert page.locator(".recipient-bar .bar-stream").last.inner_text() == "#" + XSS["stream"]
    assert page.locator(".recipient-bar .bar-topic").last.inner_text() == XSS["topic"]
    assert row.locator(".sender").inner_text() == XSS["name"]
    for link in row.locator(".message-content a").all():
        assert not (link.get_attribute("href") or "").lower().startswith("javascript:")
        link.click()
    # The status text, in the people list and on the user card, is text.
    sidebar_status = page.locator("#right-sidebar li", has_text=XSS["name"]).locator(".user-status")
    sidebar_status.wait_for()
    assert sidebar_status.inner_text() == XSS["status"]
    row.locator(".sender").click()
    page.get_by_role("dialog").wait_for()
    assert page.locator(".user-card .card-status").inner_text() == XSS["status"]
    page.keyboard.press("Escape")
    page.locator("#left-sidebar .nav-link", has_text=XSS["stream"]).wait_for()
    # File names: attached in the browser (the compose box writes the link) and through the API.
    compose_to_stream(mo, XSS["stream"], "files", "")
    for count, name in enumerate(XSS_FILES, start=1):
        mo.page.set_input_files(
            "#compose-file", files=[{"name": name, "mimeType": "text/plain", "buffer": b"x"}]
        )
        wait_until(lambda n=count: compose_uploads(mo) == n)
    mo.page.press("#compose-textarea", "Enter")
    url = upload_as(site, "pat", XSS_API_FILE, b"y")
    site.api["pat"].call(
        "POST",
        "/messages",
        type="stream",
        to=stream_id,
        topic="files",
        content=f"[{XSS_API_FILE}]({url})",
    )
    for name in (*XSS_FILES, XSS_API_FILE):
        link = page.locator(".message-content a", has_text=name)
        link.wait_for(timeout=10_000)
        assert "/user_uploads/" in (link.get_attribute("href") or "")
    mo.shot("xss")
    assert_inert(page, dialogs)


def settings_of(site: Site, short: str) -> dict[str, Any]:
    body = site.api[short].call(
        "POST",
        "/register",
        fetch_event_types=["user_settings"],
        event_types=["user_settings"],
        client_capabilities={"user_settings_object": True},
    )
    return dict(body["user_settings"])


def test_display_settings_are_kept_on_the_server(people: Any, site: Site) -> None:
    clock = site.stream("clock", "pat")
    site.api["olive"].call(
        "POST", "/messages", type="stream", to="clock", topic="t", content="what time is it"
    )
    pat = people("pat")
    page = pat.page
    page.click("#open-settings")
    page.click("#settings-tab-display")
    page.select_option("#setting-theme", "dark")
    page.check("#setting-24h")
    wait_until(lambda: settings_of(site, "pat")["color_scheme"] == 2, timeout=10)
    wait_until(lambda: settings_of(site, "pat")["twenty_four_hour_time"])
    page.keyboard.press("Escape")
    # Another browser of the same person follows live (the `user_settings` event).
    other = people("pat")
    assert other.page.evaluate("document.documentElement.dataset.theme") == "dark"
    page.reload()
    pat.wait_ready()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    pat.go(stream_hash(clock))
    time_text = message(pat, "what time is it").locator("time").inner_text()
    assert not re.search(r"AM|PM", time_text, re.I), time_text
    page.click("#open-settings")
    page.click("#settings-tab-display")
    assert page.locator("#setting-theme").input_value() == "dark"
    page.select_option("#setting-theme", "light")
    wait_until(
        lambda: other.page.evaluate("document.documentElement.dataset.theme") == "light",
        timeout=10,
    )
    page.uncheck("#setting-24h")
    wait_until(lambda: not settings_of(site, "pat")["twenty_four_hour_time"])


def png(color: tuple[int, int, int]) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (64, 64), color).save(out, format="PNG")
    return out.getvalue()


def test_avatar_upload_and_status_text(people: Any, site: Site, tmp_path: Path) -> None:
    gallery = site.stream("gallery", "mo")
    site.api["mo"].call(
        "POST", "/messages", type="stream", to="gallery", topic="me", content="my face here"
    )
    olive, mo = people("olive"), people("mo")
    olive.go(stream_hash(gallery))
    message(olive, "my face here").wait_for()
    before = olive.page.evaluate(
        "() => document.querySelector('article.message .avatar')?.getAttribute('src') ?? null"
    )
    picture = tmp_path / "face.png"
    picture.write_bytes(png((200, 40, 40)))
    page = mo.page
    page.click("#open-settings")
    page.set_input_files("#avatar-file", str(picture))
    page.locator("#profile-avatar img.avatar").wait_for(timeout=10_000)
    mo.shot("settings-profile")
    mine = message(olive, "my face here").locator("img.avatar")
    mine.wait_for(timeout=10_000)
    src = mine.get_attribute("src")
    assert src and src != before
    wait_until(
        lambda: olive.page.evaluate(
            "() => { const i = document.querySelector('article.message img.avatar');"
            " return Boolean(i && i.complete && i.naturalWidth > 0); }"
        ),
        timeout=10,
    )

    page.fill("#status-text", "out to lunch")
    page.click("#save-status")
    status = olive.page.locator("#right-sidebar li", has_text="Mo Member").locator(".user-status")
    status.wait_for(timeout=10_000)
    assert status.inner_text() == "out to lunch"
    page.click("#clear-status")
    status.wait_for(state="detached", timeout=10_000)


NOTIFICATION_RECORDER = """
window.__notifications = [];
window.Notification = class {
  static permission = "granted";
  static requestPermission() { return Promise.resolve("granted"); }
  constructor(title, options) {
    window.__notifications.push({ title, body: options?.body ?? "", tag: options?.tag ?? "" });
  }
  close() {}
};
"""


def test_desktop_notifications_for_dms_and_mentions(browser: Any, site: Site) -> None:
    bells = site.stream("bells", "mo")
    elsewhere = site.stream("elsewhere", "mo")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        context.grant_permissions(["notifications"], origin=site.url)
        context.add_init_script(NOTIFICATION_RECORDER)
        mo = Person(context.new_page())
        mo.watch()
        mo.sign_in(site.url, USERS["mo"][0], PASSWORD)
        mo.go(stream_hash(elsewhere))
        notes = lambda: mo.page.evaluate("window.__notifications")  # noqa: E731
        olive = site.api["olive"]
        olive.call("POST", "/messages", type="stream", to=bells, topic="t", content="just chatting")
        olive.call("POST", "/messages", type="direct", to=[site.ids["mo"]], content="psst")
        wait_until(lambda: len(notes()) >= 1, timeout=15)
        olive.call("POST", "/messages", type="stream", to=bells, topic="t", content="more chatting")
        olive.call(
            "POST",
            "/messages",
            type="stream",
            to=bells,
            topic="t",
            content="@**Mo Member** look here",
        )
        wait_until(lambda: len(notes()) >= 2, timeout=15)
        # The ordinary stream messages arrived before each of them and notified no one.
        got = notes()
        assert len(got) == 2, got
        assert got[0]["title"] == "Olive Owner" and "direct message" in got[0]["body"]
        assert "mentioned you in #bells" in got[1]["body"]
        assert mo.errors == []
    finally:
        context.close()


def test_near_link_opens_at_the_message(people: Any, site: Site) -> None:
    nearby = site.stream("nearby", "mo")
    ids = [
        site.api["olive"].call(
            "POST", "/messages", type="stream", to=nearby, topic="n", content=f"nearby {n}"
        )["id"]
        for n in range(3)
    ]
    mo = people("mo")
    mo.go(stream_hash(nearby, "n") + f"/near/{ids[1]}")
    message(mo, "nearby 2").wait_for()
    selected = mo.page.locator("article.message.selected")
    selected.wait_for()
    assert "nearby 1" in selected.inner_text()
    assert mo.errors == []


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


def test_typeahead_stays_open_after_a_quick_refocus(people: Any, site: Site) -> None:
    """The compose box closes its suggestions a moment after it loses focus; a box that has the
    focus back by then, and is being typed in, keeps them."""
    tour = site.stream("tour", "olive")
    olive = people("olive")
    page = olive.page
    olive.go(stream_hash(tour))
    page.click("#new-topic-message")
    page.fill("#compose-textarea", "x")
    page.click("#compose-preview")  # the focus moves to the button
    page.fill("#compose-textarea", "@Mo")
    suggestion = page.locator(".typeahead li", has_text="Mo Member")
    suggestion.wait_for()
    page.wait_for_timeout(300)
    assert suggestion.is_visible()


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


def test_flags_and_reactions_change_the_message_node_in_place(people: Any, site: Site) -> None:
    """Reading, marking unread, starring and reacting update the message's own node: a mark set
    on it in the page survives them all, where drawing the feed again would have replaced it."""
    place = site.stream("inplace", "mo")
    sent = site.api["olive"].call(
        "POST", "/messages", type="stream", to="inplace", topic="t", content="flag me in place"
    )
    mo = people("mo")
    need(mo, "reactions")
    mo.go(stream_hash(place))
    row = message(mo, "flag me in place")
    row.wait_for()
    wait_until(lambda: "unread" not in (row.get_attribute("class") or ""), timeout=10)
    row.evaluate("node => { node.keptForTest = true; }")

    def unread_ids() -> list[int]:
        body = site.api["mo"].call(
            "GET",
            "/messages",
            anchor="newest",
            num_before=10,
            num_after=0,
            narrow=[
                {"operator": "stream", "operand": place},
                {"operator": "is", "operand": "unread"},
            ],
        )
        return [m["id"] for m in body["messages"]]

    # Marked unread while in view: the node shows it and is watched again, so it is read again.
    site.api["mo"].call("POST", "/messages/flags", messages=[sent["id"]], op="remove", flag="read")
    wait_until(lambda: unread_ids() == [], timeout=10)
    site.api["mo"].call("POST", "/messages/flags", messages=[sent["id"]], op="add", flag="starred")
    star = row.locator("button.star.starred")
    star.wait_for(timeout=5000)
    assert star.get_attribute("aria-pressed") == "true"
    assert star.get_attribute("aria-label") == "Unstar this message"
    site.api["olive"].call("POST", f"/messages/{sent['id']}/reactions", emoji_name="tada")
    row.locator("button.reaction").wait_for(timeout=5000)
    assert row.evaluate("node => node.keptForTest === true")
    assert "unread" not in (row.get_attribute("class") or "")


def test_alert_words_are_marked(people: Any, site: Site) -> None:
    cafe = site.stream("cafe", "mo")
    site.api["mo"].call("POST", "/users/me/alert_words", alert_words='["coffee"]')
    site.api["olive"].call(
        "POST", "/messages", type="stream", to="cafe", topic="t", content="coffee first"
    )
    mo = people("mo")
    mo.go(stream_hash(cafe))
    message(mo, "coffee first").locator("span.alert-word", has_text="coffee").wait_for()
    # Live, and only where Zulip's word edges allow: not inside "anti-coffee".
    site.api["olive"].call(
        "POST",
        "/messages",
        type="stream",
        to="cafe",
        topic="t",
        content="anti-coffee, then coffee.",
    )
    marked = message(mo, "then coffee").locator("span.alert-word")
    marked.first.wait_for(timeout=15000)
    assert marked.count() == 1
    plain = message(mo, "then coffee").locator(".message-content").inner_text()
    assert "anti-coffee" in plain
    mo.shot("alert-words")


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
    # The stream's view showed a "books" bar already: wait for the topic's own view.
    mo.page.wait_for_url("**/topic/books")
    mo.page.locator(".recipient-bar .bar-topic", has_text="books").first.wait_for()
    maps = mo.page.locator(".recipient-bar .bar-topic", has_text="maps")
    wait_until(lambda: maps.count() == 0)
    assert maps.count() == 0


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
