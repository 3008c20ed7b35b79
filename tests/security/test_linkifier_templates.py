"""A linkifier whose URL template names a `javascript:` (or other non-link) scheme used to be
stored; rendering made no link of it, but such a template is now refused up front, on creation
and on update, with the template error."""

from __future__ import annotations

import pytest

from atrium.chat import schema
from tests.chat.conftest import ChatHarness, assert_json_error, assert_json_success, chat, settings

pytestmark = pytest.mark.anyio
__all__ = ["chat", "settings"]

BAD = [
    "javascript:alert({id})",
    "JavaScript:alert({id})",
    "data:text/html,{id}",
    "vbscript:{id}",
]


@pytest.mark.parametrize("template", BAD)
async def test_script_templates_are_refused(chat: ChatHarness, template: str) -> None:
    before = await chat.count(schema.realm_filter)
    response = await chat.post(
        "/realm/filters", chat.iago, pattern=r"XSS(?P<id>\d+)", url_template=template
    )
    body = assert_json_error(response, "Invalid URL template.")
    assert body["errors"]["url_template"] == ["Invalid URL template."]
    assert await chat.count(schema.realm_filter) == before


async def test_update_to_a_script_template_is_refused(chat: ChatHarness) -> None:
    created = assert_json_success(
        await chat.post(
            "/realm/filters",
            chat.iago,
            pattern=r"T(?P<id>\d+)",
            url_template="https://tracker.example/{id}",
        )
    )
    response = await chat.patch(
        f"/realm/filters/{created['id']}",
        chat.iago,
        pattern=r"T(?P<id>\d+)",
        url_template="javascript:alert({id})",
    )
    assert_json_error(response, "Invalid URL template.")


@pytest.mark.parametrize(
    "template", ["https://tracker.example/{id}", "/#narrow/stream/{id}", "{+url}", "mailto:{id}"]
)
async def test_link_templates_are_accepted(chat: ChatHarness, template: str) -> None:
    group = "url" if "url" in template else "id"
    response = await chat.post(
        "/realm/filters", chat.iago, pattern=rf"L(?P<{group}>\w+)", url_template=template
    )
    assert_json_success(response)
