"""A team's first days in the chat's web client, in Debian's Chromium: an invitation sent from
the browser and accepted end to end, Welcome Bot's message and the default streams on the new
member's first screen, the stream browser, bots, custom emoji, and only the controls each role
may use. Names and descriptions carry markup and script, which must show as text.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
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

HOSTILE = '<img src=x onerror="window.pwned=1"><script>window.pwned=1</script>'
# Names may not hold `>`, `"` or `@` (as in Zulip): markup that would open a tag where the name
# is pasted into HTML.
HOSTILE_NAME = "<img src=x onerror=window.pwned=1 title=&amp;"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    chromium_or_skip()
    with start_site(tmp_path_factory.mktemp("chat-onboarding")) as running:
        yield running


def make_stream(
    site: Site, name: str, description: str, *members: str, private: bool = False
) -> int:
    owner = site.api["olive"]
    owner.call(
        "POST",
        "/users/me/subscriptions",
        subscriptions=[{"name": name, "description": description}],
        principals=[site.ids[m] for m in ("olive", *members)],
        invite_only=private,
    )
    return int(owner.call("GET", "/get_stream_id", stream=name)["stream_id"])


def not_pwned(person: Person) -> None:
    assert person.page.evaluate("() => window.pwned") is None
    assert not [e for e in person.errors if "pageerror" in e or "Content Security" in e]


def open_settings(person: Person, tab: str) -> None:
    person.page.click("#open-settings")
    person.page.get_by_role("tab", name=tab).click()


def png_bytes() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGBA", (32, 32), (220, 40, 90, 255)).save(out, format="PNG")
    return out.getvalue()


# --- tests -----------------------------------------------------------------------------------


def test_invitation_accepted_end_to_end(people: Any, site: Site) -> None:
    town = make_stream(site, "town square", f"Say hello {HOSTILE}", "mo")
    extra = make_stream(site, "newcomers", "Questions welcome", "mo")
    site.api["olive"].call("POST", "/default_streams", stream_id=town)
    olive = people("olive")
    page = olive.page
    page.click("#invite-people")
    dialog = page.get_by_role("dialog", name="Invite people")
    # The default stream is chosen already; the inviter adds another.
    assert dialog.get_by_label("town square").is_checked()
    dialog.get_by_label("newcomers").check()
    page.fill("#invite-emails", "newbie@e2e.test")
    page.select_option("#invite-role", label="Member")
    page.click("#send-invites")
    row = page.locator("#invite-list tr", has_text="newbie@e2e.test")
    row.wait_for()
    olive.shot("invite-people")
    link = row.locator(".invite-link").input_value()
    assert link.startswith(site.url + "/join/")

    newbie = people()
    signup = newbie.page
    signup.goto(link)
    assert signup.locator("#email").input_value() == "newbie@e2e.test"
    signup.fill("#full_name", f"Newbie {HOSTILE_NAME}")
    signup.fill("#password", "newbie-pass-1")
    signup.click("button[type=submit]")
    signup.get_by_role("heading", name="Welcome to Browser Test").wait_for()
    newbie.sign_in(site.url, "newbie@e2e.test", "newbie-pass-1")
    sidebar = signup.locator("#left-sidebar")
    # The first screen: the default stream and the invitation's stream, and Welcome Bot's DM.
    sidebar.locator(f'li[data-stream-id="{town}"]').wait_for()
    sidebar.locator(f'li[data-stream-id="{extra}"]').wait_for()
    sidebar.get_by_role("link", name="Welcome Bot").click()
    welcome = signup.locator("article.message", has_text="welcome to Browser Test")
    welcome.wait_for()
    assert "town square" in welcome.inner_text()
    newbie.shot("new-member-first-screen")
    not_pwned(newbie)
    # The inviter sees the newcomer arrive, the name as text, and the invitation used up.
    person = page.locator("#right-sidebar .user-name", has_text="Newbie")
    person.wait_for()
    assert person.inner_text() == f"Newbie {HOSTILE_NAME}"
    wait_until(lambda: page.locator("#invite-list tr", has_text="newbie@e2e.test").count() == 0)
    not_pwned(olive)
    # The link is spent.
    assert httpx.get(link).status_code == 404


def test_reusable_link_with_role_and_streams(people: Any, site: Site) -> None:
    crew = make_stream(site, "crew", "The crew", "mo")
    olive = people("olive")
    page = olive.page
    open_settings(olive, "Invitations")
    page.get_by_role("checkbox", name="crew", exact=True).check()
    page.select_option("#invite-role", label="Moderator")
    page.click("#create-invite-link")
    link = page.locator("#new-invite-link .invite-link").input_value()
    assert "/join/" in link
    joiner = people()
    joiner.page.goto(link)
    joiner.page.fill("#email", "linked@e2e.test")
    joiner.page.fill("#full_name", "Linked Person")
    joiner.page.fill("#password", "linked-pass-1")
    joiner.page.click("button[type=submit]")
    joiner.page.get_by_role("heading", name="Welcome to Browser Test").wait_for()
    users = site.api["olive"].call("GET", "/users")["members"]
    linked = next(u for u in users if u["email"] == "linked@e2e.test")
    assert linked["role"] == 300
    members = site.api["olive"].call("GET", f"/streams/{crew}/members")["subscribers"]
    assert linked["user_id"] in members


def test_stream_found_and_joined(people: Any, site: Site) -> None:
    gem = make_stream(site, "hidden gem", f"Rare finds {HOSTILE}")
    make_stream(site, "secret plans", "Not for members", private=True)
    olive, mo = people("olive"), people("mo")
    for person in (olive, mo):
        person.page.click("#browse-streams")
        person.page.fill("#stream-filter", "gem")
    row = mo.page.locator(f'.stream-browser-row[data-stream-id="{gem}"]')
    assert row.locator(".stream-browser-description").inner_text() == f"Rare finds {HOSTILE}"
    assert row.locator(".subscriber-count").inner_text() == "1 subscriber"
    olive_row = olive.page.locator(f'.stream-browser-row[data-stream-id="{gem}"]')
    assert olive_row.locator(".subscribe-button").inner_text() == "Unsubscribe"
    # A private stream the member is not in is not listed.
    mo.page.fill("#stream-filter", "")
    assert mo.page.locator(".stream-browser-row", has_text="secret plans").count() == 0
    assert olive.page.locator(".stream-browser-row", has_text="hidden gem").count() == 1
    mo.page.fill("#stream-filter", "rare")
    mo.shot("stream-browser")
    row.get_by_role("button", name="Subscribe to hidden gem").click()
    row.get_by_role("button", name="Unsubscribe from hidden gem").wait_for()
    assert row.locator(".subscriber-count").inner_text() == "2 subscribers"
    mo.page.locator(f'#left-sidebar li[data-stream-id="{gem}"]').wait_for()
    # The other person's browser counts the new subscriber live.
    wait_until(lambda: olive_row.locator(".subscriber-count").inner_text() == "2 subscribers")
    row.get_by_role("button", name="Unsubscribe from hidden gem").click()
    row.get_by_role("button", name="Subscribe to hidden gem").wait_for()
    wait_until(lambda: mo.page.locator(f'#left-sidebar li[data-stream-id="{gem}"]').count() == 0)
    wait_until(lambda: olive_row.locator(".subscriber-count").inner_text() == "1 subscriber")
    not_pwned(mo)


def test_bots_created_keyed_downloaded_and_deactivated(
    people: Any, site: Site, tmp_path: Path
) -> None:
    mo = people("mo")
    page = mo.page
    open_settings(mo, "Bots")
    page.fill("#bot-name", f"Helper {HOSTILE_NAME}")
    page.fill("#bot-short-name", "helper")
    page.click("#create-bot")
    row = page.locator(".bot-row", has_text="Helper")
    row.wait_for()
    assert row.locator(".bot-name").inner_text() == f"Helper {HOSTILE_NAME}"
    first_key = row.locator(".api-key").inner_text()
    email = row.locator(".bot-email").inner_text()
    row.get_by_role("button", name="Regenerate API key").click()
    wait_until(lambda: row.locator(".api-key").inner_text() != first_key)
    key = row.locator(".api-key").inner_text()
    mo.shot("bots")
    with page.expect_download() as info:
        row.get_by_role("button", name="Download zuliprc").click()
    # Saved here: the worker's browser runs in another process (tests/e2e/browser_server.py).
    path = tmp_path / "zuliprc"
    info.value.save_as(path)
    with open(path) as zuliprc:
        text = zuliprc.read()
    assert text == f"[api]\nemail={email}\nkey={key}\nsite={site.url}\n"
    me = httpx.get(site.url + "/api/v1/users/me", auth=(email, key))
    assert me.json()["full_name"] == f"Helper {HOSTILE_NAME}"
    assert httpx.get(site.url + "/api/v1/users/me", auth=(email, first_key)).status_code == 401
    row.get_by_role("button", name="Deactivate").click()
    wait_until(lambda: page.locator(".bot-row", has_text="Helper").count() == 0)
    assert httpx.get(site.url + "/api/v1/users/me", auth=(email, key)).status_code == 401
    not_pwned(mo)


def test_custom_emoji_uploaded_listed_deleted(people: Any, site: Site) -> None:
    mo, pat = people("mo"), people("pat")
    open_settings(mo, "Custom emoji")
    open_settings(pat, "Custom emoji")
    mo.page.fill("#emoji-name", "party_blob")
    mo.page.set_input_files(
        "#emoji-file", {"name": "blob.png", "mimeType": "image/png", "buffer": png_bytes()}
    )
    mo.page.click("#add-emoji")
    row = mo.page.locator('.emoji-row[data-emoji-name="party_blob"]')
    row.wait_for()
    wait_until(lambda: row.locator("img").evaluate("i => i.complete && i.naturalWidth") == 32)
    mo.shot("custom-emoji")
    # Another member sees it live, without a Delete button: only its author or an admin may.
    other = pat.page.locator('.emoji-row[data-emoji-name="party_blob"]')
    other.wait_for()
    assert other.get_by_role("button").count() == 0
    row.get_by_role("button", name="Delete :party_blob:").click()
    other.wait_for(state="detached")
    emoji = site.api["mo"].call("GET", "/realm/emoji")["emoji"]
    assert all(e["deactivated"] for e in emoji.values() if e["name"] == "party_blob")


def test_members_see_only_the_controls_they_may_use(people: Any, site: Site) -> None:
    make_stream(site, "ruled", "A stream with rules", "mo", "pat")
    mo, olive = people("mo"), people("olive")
    page = mo.page
    page.click("#open-settings")
    tabs = page.get_by_role("tablist").inner_text()
    for admin_only in ("Users", "Organization", "Linkifiers", "Default streams"):
        assert admin_only not in tabs
    page.get_by_role("tab", name="Streams", exact=True).click()
    page.locator(".admin-list").get_by_role("button", name="ruled").click()
    editor = page.locator(".stream-editor")
    editor.get_by_text("A stream with rules").wait_for()
    editor.get_by_text("Mo Member").wait_for()
    assert editor.get_by_role("button", name="Save stream").count() == 0
    assert editor.get_by_role("button", name="Archive stream").count() == 0
    assert editor.get_by_role("button", name="remove").count() == 0
    assert editor.get_by_role("button", name="unsubscribe").count() == 1
    mo.shot("member-stream-settings")
    page.get_by_role("tab", name="Invitations").click()
    roles = page.locator("#invite-role option").all_inner_texts()
    assert "Administrator" not in roles and "Owner" not in roles and "Member" in roles
    assert page.locator("#create-invite-link").count() == 0
    # The owner has them all.
    olive.page.click("#open-settings")
    assert "Organization" in olive.page.get_by_role("tablist").inner_text()
    olive.page.get_by_role("tab", name="Invitations").click()
    assert "Owner" in olive.page.locator("#invite-role option").all_inner_texts()
    assert olive.page.locator("#create-invite-link").count() == 1
    olive.page.get_by_role("tab", name="Streams", exact=True).click()
    olive.page.locator(".admin-list").get_by_role("button", name="ruled").click()
    olive.page.get_by_role("button", name="Archive stream").wait_for()
    # Where only administrators may rename topics or move messages, a member's message menu
    # offers neither; the organization's change reaches the open page live.
    ruled = site.api["olive"].call("GET", "/get_stream_id", stream="ruled")["stream_id"]
    site.api["olive"].call("POST", "/messages", type="stream", to=ruled, topic="t", content="rules")
    page.keyboard.press("Escape")
    mo.go(f"#narrow/stream/{ruled}-ruled")
    item = page.locator("article.message", has_text="rules")
    site.api["olive"].call(
        "PATCH", "/realm", edit_topic_policy=2, move_messages_between_streams_policy=2
    )
    try:
        wait_until(lambda: "Move message or rename topic" not in menu_items(item))
        items = menu_items(item)
        assert "Move message or rename topic" not in items
        assert "Mark topic as resolved" not in items
        assert "Quote and reply" in items
    finally:
        site.api["olive"].call(
            "PATCH", "/realm", edit_topic_policy=5, move_messages_between_streams_policy=1
        )
    wait_until(lambda: "Move message or rename topic" in menu_items(item))


def menu_items(article: Any) -> list[str]:
    article.hover()
    article.locator(".actions-button").click()
    menu = article.page.get_by_role("menu", name="Message actions")
    items = menu.get_by_role("menuitem").all_inner_texts()
    article.page.keyboard.press("Escape")
    return list(items)
