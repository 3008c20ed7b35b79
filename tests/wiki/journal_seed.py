"""A wiki with a journal: the reference pages (`seed`) and then edits by several kinds of users,
a deletion, a move, a block, a rights change, watched pages and a tagged edit, all through the
API, so every journal list (recentchanges, logevents, usercontribs, watchlist, ...) has rows."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from tests.wiki.seed import seed
from tests.wiki.snapshots import wiki_from_snapshot


async def journal(wiki: Any, client: Any) -> None:
    await seed(wiki, client)
    token = await wiki.csrf(client)

    async def post(**params: Any) -> Any:
        result = await wiki.post(client, token=token, **params)
        assert "error" not in result, result
        return result

    await post(action="edit", title="Apple", appendtext="\nMore apples.", minor="1",
               summary="more [[apples]]")  # fmt: skip
    await post(action="managetags", operation="create", tag="fruity", reason="for tests")
    await post(action="edit", title="Banana", appendtext="\nTagged.", tags="fruity")
    await post(action="edit", title="Doomed", text="to be deleted", summary="doomed")
    await post(action="delete", title="Doomed", reason="no need")
    await post(action="move", **{"from": "Filler page 15"}, to="Moved filler", reason="rename")
    await post(action="block", user="192.0.2.7", expiry="1 week", reason="vandal")
    rights = (await wiki.api(client, action="query", meta="tokens", type="userrights"))["query"]
    done = await wiki.post(
        client, action="userrights", user="Alice", add="bot", reason="trust",
        token=rights["tokens"]["userrightstoken"],
    )  # fmt: skip
    assert "error" not in done, done
    watch = (await wiki.api(client, action="query", meta="tokens", type="watch"))["query"]
    done = await wiki.post(
        client, action="watch", titles="Apple|Cherry|Talk:Banana",
        token=watch["tokens"]["watchtoken"],
    )  # fmt: skip
    assert "error" not in done, done
    async with wiki.client() as other:
        await wiki.login(other, "Alice")
        alice = await wiki.csrf(other)
        for text in ("Alice was here.", "Alice again."):
            result = await wiki.post(
                other, action="edit", title="Cherry", appendtext="\n" + text, token=alice,
                summary="alice", minor="1",
            )  # fmt: skip
            assert "error" not in result, result
        result = await wiki.post(
            other, action="edit", title="Apple", appendtext="\nAlice.", token=alice, bot="1"
        )
        assert "error" not in result, result
    async with wiki.client() as anon:
        result = await wiki.post(
            anon, action="edit", title="Talk:Banana", text="An anonymous remark.", token="+\\"
        )
        assert "error" not in result, result


@contextlib.asynccontextmanager
async def journaled_wiki(
    data_dir: Path, database_url: str | None, sqlite_templates: Path, cache: Path
) -> AsyncIterator[tuple[Any, httpx.AsyncClient]]:
    """A wiki with `journal`'s rows and a client signed in as Admin: built through the API the
    first time on each worker and backend, then restored from a snapshot (a fraction of a
    second instead of seconds)."""
    async with (
        wiki_from_snapshot(
            "journal", journal, data_dir, database_url, sqlite_templates, cache
        ) as wiki,
        wiki.client() as client,
    ):
        await wiki.login(client, "Admin")
        yield wiki, client
