"""action=move with movetalk and movesubpages: the talk page's subpages move as `subpages-talk`."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio


async def test_subpages_and_talk_subpages_move(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    for title in ("Base", "Base/Child", "Talk:Base", "Talk:Base/Archive"):
        await wiki.edit_page(title, f"text of {title}")
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    data = await wiki.post(
        client,
        action="move",
        **{"from": "Base"},
        to="User:Moved",
        movetalk="1",
        movesubpages="1",
        reason="testing",
        token=token,
    )
    move = data["move"]
    assert (move["talkfrom"], move["talkto"]) == ("Talk:Base", "User talk:Moved")
    assert move["subpages"] == [{"from": "Base/Child", "to": "User:Moved/Child"}]
    assert move["subpages-talk"] == [{"from": "Talk:Base/Archive", "to": "User talk:Moved/Archive"}]
    info = await wiki.api(client, action="query", titles="User talk:Moved/Archive")
    assert "missing" not in next(iter(info["query"]["pages"].values()))
    # without movetalk the talk subpages stay
    await wiki.edit_page("Other", "x")
    await wiki.edit_page("Talk:Other/Old", "x")
    data = await wiki.post(
        client, action="move", **{"from": "Other"}, to="Other2", movesubpages="1", token=token
    )
    assert "subpages-talk" not in data["move"]
