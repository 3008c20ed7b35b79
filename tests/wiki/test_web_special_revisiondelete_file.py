"""`Special:RevisionDelete?target=File:…&file=<archive name>`: an old version of a file whose file
is hidden, shown to those who may see it (`deletedtext`; `viewsuppressed` once suppressed),
through the token-bearing link of the list, or after the question MediaWiki asks without it;
never cached, served sandboxed. Readers without the right, a wrong token, unknown or traversing
archive names get no byte of it."""

from __future__ import annotations

import re
from html import unescape

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.test_revision_delete_files import _png, _revdel, _sign_in_hider, _upload, _versions
from tests.wiki.web_special_seed import sign_in

pytestmark = pytest.mark.anyio

FIRST = _png(40)


async def _hidden_old_version(wiki: WikiHarness, client: httpx.AsyncClient, suppress: bool) -> str:
    """Rdw.png in two versions, the first one's file hidden; its archive name."""
    await wiki.login(client, "Admin")
    await _upload(wiki, client, "Rdw.png", FIRST, "first version")
    await _upload(wiki, client, "Rdw.png", _png(50), "second version")
    archive = str((await _versions(wiki, client))[1]["archivename"])
    async with wiki.client() as hider:
        await _sign_in_hider(wiki, hider)
        extra = {"suppress": "yes"} if suppress else {}
        done = await _revdel(wiki, hider, type="oldimage", target="File:Rdw.png",
                             ids=archive.split("!", 1)[0], hide="content", **extra)  # fmt: skip
        assert done["revisiondelete"]["status"] == "Success", done
    return archive


def _file_link(page: httpx.Response) -> str:
    links = re.findall(r'<a href="([^"]*file=[^"]*)"', page.text)
    assert len(links) == 1, page.text
    return unescape(links[0])


async def test_the_lists_link_shows_the_hidden_file(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    archive = await _hidden_old_version(wiki, client, suppress=False)
    async with wiki.client() as admin:
        await sign_in(wiki, admin, "Admin")  # deletedtext, as sysop
        listed = await admin.get("/w/index.php", params={
            "title": "Special:RevisionDelete", "type": "oldimage", "target": "File:Rdw.png",
            "ids": archive.split("!", 1)[0]})  # fmt: skip
        link = _file_link(listed)
        shown = await admin.get(link)
        assert shown.status_code == 200 and shown.content == FIRST
        assert shown.headers["content-type"] == "image/png"
        assert "no-store" in shown.headers["cache-control"]
        assert "sandbox" in shown.headers["content-security-policy"]
        assert shown.headers["x-content-type-options"] == "nosniff"
        # Without the token: MediaWiki's question, whose form carries it.
        bare = re.sub(r"&token=[^&]*", "", link)
        asked = await admin.get(bare)
        assert asked.status_code == 200 and asked.content != FIRST
        assert "Are you sure you want to view a deleted revision of the file" in asked.text
        action = unescape(re.findall(r'<form method="post" action="([^"]+)"', asked.text)[-1])
        assert (await admin.post(action)).content == FIRST
        wrong = await admin.get(bare + "&token=0123abcd")
        assert wrong.content != FIRST and "Are you sure" in wrong.text
        # A token is the session's: another session's link shows nothing.
        async with wiki.client() as other:
            await sign_in(wiki, other, "Admin")
            assert (await other.get(link)).content != FIRST


async def test_readers_without_the_right_get_nothing(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    archive = await _hidden_old_version(wiki, client, suppress=False)
    path = f"/w/index.php?title=Special:RevisionDelete&target=File:Rdw.png&file={archive}"
    async with wiki.client() as anonymous:
        refused = await anonymous.get(path)
        assert refused.content != FIRST and "Permission error" in refused.text
    async with wiki.client() as alice:
        await sign_in(wiki, alice, "Alice")
        listed = await alice.get(path)
        assert listed.content != FIRST and "Permission error" in listed.text


async def test_a_suppressed_file_needs_viewsuppressed(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    archive = await _hidden_old_version(wiki, client, suppress=True)
    ids = archive.split("!", 1)[0]
    params = {"title": "Special:RevisionDelete", "type": "oldimage", "target": "File:Rdw.png",
              "ids": ids}  # fmt: skip
    async with wiki.client() as admin:
        await sign_in(wiki, admin, "Admin")
        listed = await admin.get("/w/index.php", params=params)
        assert "file=" not in listed.text  # no link to what they may not see
        token_less = await admin.get("/w/index.php", params={**params, "file": archive})
        assert token_less.content != FIRST and "Permission error" in token_less.text
    async with wiki.client() as hider:
        await sign_in(wiki, hider, "Hiderfq")
        shown = await hider.get(_file_link(await hider.get("/w/index.php", params=params)))
        assert shown.content == FIRST


async def test_unknown_and_traversing_names(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await _hidden_old_version(wiki, client, suppress=False)
    async with wiki.client() as admin:
        await sign_in(wiki, admin, "Admin")
        for target, name in (
            ("File:Rdw.png", "20010101000000!Rdw.png"),
            ("File:Rdw.png", "../../../../etc/passwd"),
            ("File:Rdw.png", "x/../../Rdw.png"),
            ("Main Page", "20010101000000!Rdw.png"),
            ("File:Nowhere.png", "\x00"),
        ):
            answer = await admin.get("/w/index.php", params={
                "title": "Special:RevisionDelete", "target": target, "file": name})  # fmt: skip
            assert answer.status_code == 200, (target, name)
            assert answer.content != FIRST
        shown = await admin.get("/w/index.php", params={
            "title": "Special:RevisionDelete", "target": "File:Rdw.png",
            "file": "20010101000000!Rdw.png"})  # fmt: skip
        assert "The file specified does not exist." in shown.text
