"""The page actions of the skin's "More" menu (Delete, Move, Protect / Change protection,
Undelete) shown only to readers with the rights; `Special:Undelete` (search, revision
selection, restore) with its refusals; `Special:DeletePage` and `Special:ProtectPage`
redirecting to the actions; hostile titles and summaries staying text."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import edit, page_token, png, sign_in

from atrium.wiki import schema
from atrium.wiki.reads.page_view import raw_text

pytestmark = pytest.mark.anyio

HOSTILE = '<script>alert("x")</script>'


def _actions(html: str) -> list[str]:
    menu = re.search(r'<nav id="p-cactions".*?</nav>', html, re.S)
    return re.findall(r'<li id="(ca-[a-z]+)"', menu.group(0)) if menu else []


async def _text(wiki: WikiHarness, title: str) -> str | None:
    parsed = wiki.site.parser.parse(title)
    return await wiki.db.read(raw_text, parsed.ns, parsed.dbkey)


def _spread_timestamps(conn: Any) -> None:
    """One second apart, as revisions saved in one second are picked together."""
    ar = schema.archive
    ids = [r["ar_rev_id"] for r in conn.all(sa.select(ar.c.ar_rev_id).order_by(ar.c.ar_rev_id))]
    for n, rev_id in enumerate(ids):
        conn.execute(
            sa.update(ar).where(ar.c.ar_rev_id == rev_id).values(ar_timestamp=f"2020010100000{n}")
        )


async def _delete(wiki: WikiHarness, title: str) -> None:
    async with wiki.client() as admin:
        await sign_in(wiki, admin, "Admin")
        done = await admin.post(
            f"/w/index.php?title={title}&action=delete",
            data={"wpReason": "gone", "wpEditToken": await page_token(admin)},
        )
        assert done.status_code == 200, done.text


async def test_actions_follow_the_rights(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await edit(wiki, "Fruit", "text")
    assert _actions((await client.get("/wiki/Fruit")).text) == []
    await sign_in(wiki, client, "Alice")
    assert _actions((await client.get("/wiki/Fruit")).text) == ["ca-move"]
    async with wiki.client() as admin:
        await sign_in(wiki, admin, "Admin")
        page = (await admin.get("/wiki/Fruit")).text
        assert _actions(page) == ["ca-delete", "ca-move", "ca-protect"]
        assert 'href="/w/index.php?title=Fruit&amp;action=delete"' in page
        assert 'href="/wiki/Special:MovePage/Fruit"' in page
        missing = (await admin.get("/wiki/Nowhere")).text
        assert _actions(missing) == ["ca-protect"]
        await admin.post(
            "/w/index.php?title=Fruit&action=protect",
            data={"mwProtect-level-edit": "sysop", "mwProtect-level-move": "sysop",
                  "wpEditToken": await page_token(admin)},
        )  # fmt: skip
        protected = (await admin.get("/wiki/Fruit")).text
        assert _actions(protected) == ["ca-delete", "ca-move", "ca-unprotect"]
        assert "Change protection" in protected


async def test_undelete_tab_search_and_partial_restore(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    for n in range(3):
        await edit(wiki, "Gone page", f"version {n}", summary=f"summary {n} {HOSTILE}")
    await _delete(wiki, "Gone_page")
    await wiki.db.write(_spread_timestamps)
    # Readers without deletedhistory see no tab and are refused the page.
    assert "ca-undelete" not in (await client.get("/wiki/Gone_page")).text
    refused = await client.get("/wiki/Special:Undelete?target=Gone_page")
    assert refused.status_code == 200 and "Permission error" in refused.text
    await sign_in(wiki, client, "Alice")
    assert "Permission error" in (await client.get("/wiki/Special:Undelete")).text
    posted = await client.post(
        "/w/index.php?title=Special:Undelete",
        data={"target": "Gone page", "wpEditToken": await page_token(client)},
    )
    assert "Permission error" in posted.text and await _text(wiki, "Gone page") is None
    async with wiki.client() as admin:
        await sign_in(wiki, admin, "Admin")
        page = (await admin.get("/wiki/Gone_page")).text
        assert _actions(page) == ["ca-undelete", "ca-protect"]
        assert "Undelete 3 edits" in page
        search = await admin.get("/wiki/Special:Undelete?prefix=Gone")
        assert search.status_code == 200 and "(3 revisions deleted)" in search.text
        empty = await admin.get("/wiki/Special:Undelete?prefix=Zzz")
        assert "No matching pages found" in empty.text
        bad = await admin.get("/wiki/Special:Undelete?prefix=%3Cbad%3E")
        assert bad.status_code == 200 and "empty or invalid" in bad.text
        history = await admin.get("/wiki/Special:Undelete?target=Gone_page")
        assert history.status_code == 200
        assert HOSTILE not in history.text and "&lt;script&gt;" in history.text
        stamps = re.findall(r'name="ts(\d{14})"', history.text)
        assert len(stamps) == 3
        token = await page_token(admin)
        for wrong in ("", "nonsense"):
            refused = await admin.post(
                "/w/index.php?title=Special:Undelete",
                data={"target": "Gone page", "wpEditToken": wrong},
            )
            assert refused.status_code == 200 and "session hijacking" in refused.text
        # The oldest revision only (stamps are newest first).
        done = await admin.post(
            "/w/index.php?title=Special:Undelete",
            data={"target": "Gone page", f"ts{stamps[-1]}": "1", "wpComment": "back",
                  "wpEditToken": token},
        )  # fmt: skip
        assert done.status_code == 200 and "1 revision restored" in done.text
        assert await _text(wiki, "Gone page") == "version 0"
        rest = (await admin.get("/wiki/Special:Undelete?target=Gone_page")).text
        assert len(re.findall(r'name="ts(\d{14})"', rest)) == 2
        log = (await admin.get("/wiki/Special:Log/delete")).text
        assert "undeleted page" in log and "(1 revision)" in log


async def test_delete_and_protect_pages_redirect_to_the_actions(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    moved = await client.get("/wiki/Special:DeletePage/Some_page")
    assert moved.status_code == 302
    assert moved.headers["location"].endswith("index.php?title=Some_page&action=delete")
    moved = await client.get("/wiki/Special:ProtectPage?target=Some+page")
    assert moved.headers["location"].endswith("index.php?title=Some_page&action=protect")
    form = await client.get("/wiki/Special:DeletePage")
    assert form.status_code == 200 and 'name="target"' in form.text
    bad = await client.get("/wiki/Special:ProtectPage?target=%3Cx%3E")
    assert bad.status_code == 200 and "empty or invalid" in bad.text
    assert "&lt;x&gt;" in bad.text
    listing = (await client.get("/wiki/Special:SpecialPages")).text
    assert "Special:DeletePage" not in listing and "Special:ProtectPage" not in listing
    for gone in ("Delete", "Protect"):
        assert (await client.get(f"/wiki/Special:{gone}")).status_code == 404
    no_target = await client.get("/wiki/Special:MovePage")
    assert no_target.status_code == 200 and "not specified a target" in no_target.text


async def test_hostile_title_in_the_action_menu_stays_text(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await edit(wiki, 'Quote"onmouseover=x', "text")
    await sign_in(wiki, client, "Admin")
    page = (await client.get("/wiki/Quote%22onmouseover%3Dx")).text
    assert _actions(page) == ["ca-delete", "ca-move", "ca-protect"]
    assert '"onmouseover=x' not in page.split('id="p-cactions"')[1].split("</nav>")[0]


async def test_undelete_picks_file_versions(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await sign_in(wiki, client, "Admin")
    uploaded = await client.post(
        "/w/index.php?title=Special:Upload",
        data={"wpDestFile": "Gone.png", "wpUploadDescription": f"/* x */ {HOSTILE}",
              "wpEditToken": await page_token(client)},
        files={"wpUploadFile": ("Gone.png", png(40, 30), "image/png")},
    )  # fmt: skip
    assert uploaded.status_code == 303
    await _delete(wiki, "File:Gone.png")
    listing = (await client.get("/wiki/Special:Undelete?target=File:Gone.png")).text
    ids = re.findall(r'name="fileid(\d+)"', listing)
    assert len(ids) == 1 and "40 × 30" in listing and HOSTILE not in listing
    stamps = re.findall(r'name="ts(\d{14})"', listing)
    done = await client.post(
        "/w/index.php?title=Special:Undelete",
        data={"target": "File:Gone.png", f"fileid{ids[0]}": "1", f"ts{stamps[0]}": "1",
              "wpEditToken": await page_token(client)},
    )  # fmt: skip
    assert done.status_code == 200 and "1 revision and 1 file restored" in done.text
    page = (await client.get("/wiki/File:Gone.png")).text
    assert 'id="file"' in page
    rest = (await client.get("/wiki/Special:Undelete?target=File:Gone.png")).text
    assert "fileid" not in rest
