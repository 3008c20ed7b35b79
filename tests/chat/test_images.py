"""Avatars (POST/DELETE /users/me/avatar) and the realm's icon and logos (/realm/icon,
/realm/logo): checks, stored images that answer, register keys and events."""

from __future__ import annotations

import pytest

from tests.chat.conftest import (
    ChatHarness,
    api_ok,
    assert_json_error,
    assert_json_success,
    listen,
)
from tests.chat.uploads_helpers import png_bytes, post_files

pytestmark = pytest.mark.anyio


async def test_avatar_upload_and_reset(chat: ChatHarness) -> None:
    probe = await listen(chat, chat.cordelia, ["realm_user"])
    image = png_bytes()
    resp = await post_files(chat, "/users/me/avatar", chat.hamlet, [("me.png", image, "image/png")])
    url = assert_json_success(resp)["avatar_url"]
    assert url.startswith(f"/user_avatars/{chat.realm_id}/{chat.hamlet.id}.png?version=")
    served = await chat.client.get(url)
    assert served.status_code == 200
    assert served.headers["content-type"] == "image/png"
    assert served.content == image
    me = await api_ok(chat, "GET", "/users/me", chat.hamlet)
    assert me["avatar_url"] == url
    user = (await api_ok(chat, "GET", f"/users/{chat.hamlet.id}", chat.cordelia))["user"]
    assert user["avatar_url"] == url
    [event] = await probe.events()
    assert event["person"] == {
        "user_id": chat.hamlet.id,
        "avatar_source": "U",
        "avatar_url": url,
        "avatar_url_medium": url,
        "avatar_version": me["avatar_version"],
    }

    state = await api_ok(chat, "POST", "/register", chat.hamlet, fetch_event_types=["realm_user"])
    assert state["avatar_source"] == "U" and state["avatar_url"] == url

    resp = await chat.delete("/users/me/avatar", chat.hamlet)
    gravatar = assert_json_success(resp)["avatar_url"]
    assert gravatar.startswith("https://secure.gravatar.com/avatar/")
    assert (await chat.client.get(url)).status_code == 404
    [_, reset] = await probe.events()
    assert reset["person"]["avatar_source"] == "G"


async def test_avatar_bad_input(chat: ChatHarness) -> None:
    resp = await post_files(chat, "/users/me/avatar", chat.hamlet, [])
    assert_json_error(resp, "You must upload exactly one avatar.")
    two = [("a.png", png_bytes(), "image/png"), ("b.png", png_bytes(), "image/png")]
    resp = await post_files(chat, "/users/me/avatar", chat.hamlet, two)
    assert_json_error(resp, "You must upload exactly one avatar.")
    not_image = [("a.png", b"<svg onload=alert(1)>", "image/png")]
    resp = await post_files(chat, "/users/me/avatar", chat.hamlet, not_image)
    assert_json_error(resp, "Could not decode image; did you upload an image file?")
    big = [("a.png", b"\0" * (5 * 1024 * 1024 + 1), "image/png")]
    resp = await post_files(chat, "/users/me/avatar", chat.hamlet, big)
    assert_json_error(resp, "Uploaded file is larger than the allowed limit of 5 MiB")
    resp = await post_files(chat, "/users/me/avatar", None, [("a.png", png_bytes(), "image/png")])
    assert resp.status_code == 401


async def test_realm_icon(chat: ChatHarness) -> None:
    settings = assert_json_success(await chat.get("/server_settings", None))
    icon = settings["realm_icon"]
    base = chat.runtime.settings.base_url
    assert icon.startswith(base)
    default = await chat.client.get(icon.removeprefix(base))
    assert default.status_code == 200 and default.headers["content-type"] == "image/png"

    resp = await post_files(chat, "/realm/icon", chat.hamlet, [("i.png", png_bytes(), "image/png")])
    assert_json_error(resp, "Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL")
    resp = await post_files(chat, "/realm/icon", chat.iago, [])
    assert_json_error(resp, "You must upload exactly one icon.")

    probe = await listen(chat, chat.hamlet, ["realm"])
    image = png_bytes((1, 2, 3))
    resp = await post_files(chat, "/realm/icon", chat.iago, [("i.png", image, "image/png")])
    url = assert_json_success(resp)["icon_url"]
    assert (await chat.client.get(url)).content == image
    [event] = await probe.events()
    assert event == {
        "type": "realm",
        "op": "update_dict",
        "property": "icon",
        "data": {"icon_url": url, "icon_source": "U"},
        "id": event["id"],
    }
    state = await api_ok(
        chat, "POST", "/register", chat.hamlet, fetch_event_types=["realm"], event_types=["realm"]
    )
    assert state["realm_icon_url"] == url and state["realm_icon_source"] == "U"
    assert state["max_icon_file_size_mib"] == 5
    assert state["max_file_upload_size_mib"] == 25
    settings = assert_json_success(await chat.get("/server_settings", None))
    assert settings["realm_icon"] == base + url

    resp = await chat.delete("/realm/icon", chat.iago)
    reset = assert_json_success(resp)["icon_url"]
    assert reset != url
    assert (await chat.client.get(reset)).content != image


async def test_realm_logo_day_and_night(chat: ChatHarness) -> None:
    day, night = png_bytes((9, 9, 9)), png_bytes((7, 7, 7))
    resp = await post_files(chat, "/realm/logo", chat.iago, [("d.png", day, "image/png")])
    assert_json_success(resp)
    resp = await post_files(
        chat, "/realm/logo", chat.iago, [("n.png", night, "image/png")], {"night": "true"}
    )
    assert_json_success(resp)
    state = await api_ok(chat, "POST", "/register", chat.iago, fetch_event_types=["realm"])
    assert state["realm_logo_source"] == "U" and state["realm_night_logo_source"] == "U"
    assert (await chat.client.get(state["realm_logo_url"])).content == day
    assert (await chat.client.get(state["realm_night_logo_url"])).content == night
    resp = await chat.delete("/realm/logo", chat.iago, night=True)
    assert_json_success(resp)
    state = await api_ok(chat, "POST", "/register", chat.iago, fetch_event_types=["realm"])
    assert state["realm_night_logo_source"] == "D" and state["realm_logo_source"] == "U"
    resp = await chat.delete("/realm/logo", chat.hamlet)
    assert_json_error(resp, "Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL")
    resp = await post_files(chat, "/realm/logo", chat.iago, [("x.txt", b"text", "text/plain")])
    assert_json_error(resp, "Could not decode image; did you upload an image file?")
