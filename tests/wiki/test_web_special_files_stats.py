"""`Special:ListFiles` and `Special:Statistics` over HTTP: the files with uploader and description
(a hidden uploader removed), the counts the API's siteinfo reports, and escaping."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import page_token, png, sign_in

from atrium.wiki.changes.blocks import BlockRequest
from atrium.wiki.changes.blocks import block as do_block
from atrium.wiki.changes.journal import Performer
from atrium.wiki.reads.users import account_by_name

pytestmark = pytest.mark.anyio

UPLOAD = "/w/index.php?title=Special:Upload"


async def _upload(wiki: WikiHarness, client: httpx.AsyncClient, name: str, shade: int) -> None:
    response = await client.post(
        UPLOAD,
        data={"wpDestFile": name, "wpUploadDescription": "<b>pic</b>",
              "wpEditToken": await page_token(client)},
        files={"wpUploadFile": (name, png(200, 100, shade), "image/png")},
    )  # fmt: skip
    assert response.status_code == 303, response.text


async def test_list_files_and_hidden_uploaders(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await sign_in(wiki, client, "Alice")
    await _upload(wiki, client, "One.png", 1)
    async with wiki.client() as robot:
        await sign_in(wiki, robot, "Robot")
        await _upload(wiki, robot, "Two.png", 2)
    text = (await client.get("/wiki/Special:ListFiles")).text
    assert ">One.png<" in text and ">Two.png<" in text
    assert ">Alice<" in text and ">Robot<" in text
    assert "&lt;b&gt;pic&lt;/b&gt;" in text and "<b>pic" not in text
    assert "/120px-One.png" in text
    mine = (await client.get("/wiki/Special:ListFiles/Alice")).text
    assert ">One.png<" in mine and ">Two.png<" not in mine
    robot_account = await wiki.db.read(account_by_name, "Robot")
    assert robot_account is not None
    request = BlockRequest(
        target="Robot", user_id=robot_account.id, expiry="infinity", duration="infinite",
        hidename=True,
    )  # fmt: skip
    await wiki.db.write(do_block, Performer(1, "Admin", frozenset({"block", "hideuser"})), request)
    hidden = (await client.get("/wiki/Special:ListFiles")).text
    assert ">Two.png<" in hidden and "Robot" not in hidden and "(username removed)" in hidden
    by_name = (await client.get("/wiki/Special:ListFiles/Robot")).text
    assert "No files found." in by_name
    file_page = (await client.get("/wiki/File:Two.png")).text
    assert "Robot" not in file_page and "(username removed)" in file_page


async def test_statistics_match_siteinfo(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Alpha", "a")
    await wiki.edit_page("Beta", "#REDIRECT [[Alpha]]")
    await wiki.edit_page("Talk:Alpha", "t")
    info = await wiki.api(client, action="query", meta="siteinfo", siprop="statistics")
    counts = info["query"]["statistics"]
    text = (await client.get("/wiki/Special:Statistics")).text
    for key, row in (("articles", "mw-statistics-articles"), ("pages", "mw-statistics-pages"),
                     ("edits", "mw-statistics-edits"), ("users", "mw-statistics-users"),
                     ("admins", "statistics-group-sysop")):  # fmt: skip
        cell = text.split(f'<tr class="{row}">', 1)[1].split('mw-statistics-numbers">', 1)[1]
        assert cell.startswith(f"{counts[key]}<"), key
    assert counts["articles"] == 1 and counts["pages"] == 3
