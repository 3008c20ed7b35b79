"""`server_emoji_data_url` names a file this server serves: codes to names, cacheable."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from atrium.chat.markdown.emoji import emoji_table
from tests.chat.conftest import ChatHarness, api_ok

pytestmark = pytest.mark.anyio


async def test_emoji_data_url_answers(chat: ChatHarness) -> None:
    state = await api_ok(chat, "POST", "/register", chat.hamlet, fetch_event_types=["realm"])
    url = state["server_emoji_data_url"]
    assert url.startswith(chat.runtime.settings.base_url + "/")
    path = urlsplit(url).path
    # Public, as Zulip's static files are: no credentials sent.
    response = await chat.client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    code_to_names = response.json()["code_to_names"]
    table = emoji_table()
    assert code_to_names["1f44d"][0] == table.codepoint_to_name["1f44d"]
    assert "thumbs_up" in code_to_names["1f44d"]
    for name, code in table.name_to_codepoint.items():
        assert name in code_to_names[code]
    for code, names in code_to_names.items():
        assert names[0] == table.codepoint_to_name[code]
        assert len(set(names)) == len(names)
    # A client revalidates with the entity tag and gets no body back.
    etag = response.headers["etag"]
    again = await chat.client.get(path, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    head = await chat.client.head(path)
    assert head.status_code == 200 and head.headers["etag"] == etag
    assert (await chat.client.post(path)).status_code == 405
