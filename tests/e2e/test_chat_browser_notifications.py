"""Notification settings in the chat's web client, in Debian's Chromium, as Zulip's: per stream
(desktop, sound, email, @all mentions; no mobile column without a push service), the defaults,
the sound, the email settings; and the notifications that follow from them when another person
writes. The browser's Notification and AudioContext are wrapped to count what the client does.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

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

QUIET = "quiet <img src=x onerror=window.pwned=1>"
# Counts the desktop notifications and the tones the page makes.
RECORDER = """
window.__notes = [];
window.__tones = 0;
window.Notification = class {
  static permission = "granted";
  static requestPermission() { return Promise.resolve("granted"); }
  constructor(title, options) { window.__notes.push([title, options.body]); }
};
const Base = window.AudioContext;
window.AudioContext = class extends Base {
  createOscillator() { window.__tones += 1; return super.createOscillator(); }
};
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    chromium_or_skip()
    with start_site(tmp_path_factory.mktemp("chat-notifications")) as running:
        running.stream("loud", "mo")
        running.stream(QUIET, "mo")
        yield running


@pytest.fixture
def mo(browser: Any, site: Site) -> Iterator[Person]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_init_script(RECORDER)
    person = Person(context.new_page())
    person.watch()
    person.sign_in(site.url, USERS["mo"][0], PASSWORD)
    yield person
    context.close()


def settings_of(site: Site) -> dict[str, Any]:
    body = site.api["mo"].call("POST", "/register", fetch_event_types=["user_settings"])
    return dict(body["user_settings"])


def subscription(site: Site, name: str) -> dict[str, Any]:
    subs = site.api["mo"].call("GET", "/users/me/subscriptions")["subscriptions"]
    return dict(next(s for s in subs if s["name"] == name))


def test_settings_are_stored_per_stream_and_for_email(mo: Person, site: Site) -> None:
    page = mo.page
    page.click("#open-settings")
    page.get_by_role("tab", name="Notifications").click()
    table = page.locator("#stream-notifications")
    headers = table.locator("thead th").all_inner_texts()
    assert headers == ["Stream", "Desktop", "Sound", "Email", "@all mentions"]  # no push service
    assert table.get_by_role("rowheader", name=QUIET).inner_text() == QUIET
    page.get_by_label("Sound: loud").check()
    page.get_by_label("Desktop: loud").check()
    page.get_by_label("Email: loud").check()
    page.get_by_label("@all mentions: default for streams").uncheck()
    page.select_option("#setting-sound", "ding")
    page.select_option("#setting-email-batching", label="10 minutes")
    page.get_by_label("Digest emails while I am away").uncheck()
    mo.shot("notification-settings")
    wait_until(lambda: subscription(site, "loud")["email_notifications"] is True)
    loud = subscription(site, "loud")
    assert loud["audible_notifications"] is True and loud["desktop_notifications"] is True
    wait_until(lambda: settings_of(site)["enable_digest_emails"] is False)
    stored = settings_of(site)
    assert stored["wildcard_mentions_notify"] is False
    assert stored["notification_sound"] == "ding"
    assert stored["email_notifications_batching_period_seconds"] == 600
    # A change made elsewhere shows here at once.
    site.api["mo"].call("PATCH", "/settings", enable_sounds=False)
    wait_until(lambda: not page.locator("#setting-sounds").is_checked())
    site.api["mo"].call("PATCH", "/settings", enable_sounds=True)
    wait_until(lambda: page.locator("#setting-sounds").is_checked())
    assert page.evaluate("() => window.pwned") is None


def test_messages_notify_as_the_settings_say(mo: Person, site: Site) -> None:
    page = mo.page
    olive = site.api["olive"]
    page.evaluate("() => { location.hash = '#drafts'; }")
    page.locator("#nav-drafts[aria-current=page]").wait_for()

    def counts() -> tuple[int, int]:
        notes, tones = page.evaluate("() => [window.__notes.length, window.__tones]")
        return int(notes), int(tones)

    # The quiet stream keeps the defaults (no desktop, no sound), and @all there does not
    # count as a mention, since @all notifications are off.
    olive.call("POST", "/messages", type="stream", to=QUIET, topic="t", content="hush")
    olive.call("POST", "/messages", type="stream", to=QUIET, topic="t", content="@**all** hush")
    page.wait_for_timeout(700)
    assert counts() == (0, 0)
    olive.call("POST", "/messages", type="stream", to="loud", topic="t", content="hear <b>me</b>")
    wait_until(lambda: counts()[0] == 1)
    wait_until(lambda: counts()[1] > 0)
    title, body = page.evaluate("() => window.__notes[0]")
    assert title == "Olive Owner" and body == "#loud > t: hear <b>me</b>"
    tones = counts()[1]
    # A direct message notifies by the personal settings.
    olive.call("POST", "/messages", type="private", to=[site.ids["mo"]], content="psst")
    wait_until(lambda: counts()[0] == 2)
    wait_until(lambda: counts()[1] > tones)
    # Sounds off: a desktop notification still, no tone.
    site.api["mo"].call("PATCH", "/settings", enable_sounds=False)
    page.wait_for_timeout(300)
    tones = counts()[1]
    olive.call("POST", "/messages", type="private", to=[site.ids["mo"]], content="again")
    wait_until(lambda: counts()[0] == 3)
    page.wait_for_timeout(300)
    assert counts()[1] == tones
    site.api["mo"].call("PATCH", "/settings", enable_sounds=True)
    assert page.evaluate("() => window.pwned") is None
