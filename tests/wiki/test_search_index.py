"""list=search against a brute-force scan of the pages' words, through saves, moves, deletions and
undeletions: hits in page-id order, totalhits, namespaces (rowid ranges of SQLite's slim index),
and on SQLite the slim index (`searchslim`) equal to one rebuilt from scratch and answering as
the positional one."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

from atrium.core.db import Conn
from atrium.wiki import search

pytestmark = pytest.mark.anyio

WORDS = ("alpha", "beta", "gamma", "delta")
PREFIXES = {0: "", 1: "Talk:", 4: "Project:", 12: "Help:"}
NAMESPACE_SETS = ([0], [1], [0, 1], [4, 12], [0, 1, 4, 12])
QUERIES = ("alpha", "alpha beta", "gamma -delta", "gam*", "beta delta alpha", "zeta", "foo_bar")


def _text(i: int) -> str:
    words = [w for bit, w in enumerate(WORDS) if (i >> bit) & 1]
    if i % 5 == 0:
        words.append("foo_bar")
    return f"Page {i}: " + " ".join(words) + "."


def _matches(query: str, words: set[str]) -> bool:
    for term in query.split():
        if term.startswith("-"):
            if term[1:] in words:
                return False
        elif term.endswith("*"):
            if not any(w.startswith(term[:-1]) for w in words):
                return False
        elif term not in words:
            return False
    return True


def _words(text: str) -> set[str]:
    # "foo_bar" stays one entry: the model's phrase query asks for the two words in a row.
    return set(text.replace(":", " ").replace(".", " ").lower().split())


async def _build(wiki: WikiHarness, client: httpx.AsyncClient) -> dict[str, tuple[int, set[str]]]:
    """Twenty pages over four namespaces, then a move across namespaces, an edit, a deletion and
    a deletion undone; returns title -> (namespace, words) of the pages that remain."""
    model: dict[str, tuple[int, set[str]]] = {}
    for i in range(20):
        ns = list(PREFIXES)[i % 4]
        title = f"{PREFIXES[ns]}Page {i:02d}"
        await wiki.edit_page(title, _text(i))
        model[title] = (ns, _words(_text(i)))
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    moved = await wiki.post(
        client, action="move", **{"from": "Page 04"}, to="Talk:Moved alpha", token=token,
        noredirect="1",
    )  # fmt: skip
    assert "move" in moved, moved
    model["Talk:Moved alpha"] = (1, model.pop("Page 04")[1])
    edited = await wiki.post(
        client, action="edit", title="Project:Page 05", text="Now delta only.", token=token
    )
    assert edited["edit"]["result"] == "Success", edited
    model["Project:Page 05"] = (4, {"now", "delta", "only"})
    for title in ("Help:Page 03", "Page 08"):
        deleted = await wiki.post(client, action="delete", title=title, token=token)
        assert "delete" in deleted, deleted
        model.pop(title)
    restored = await wiki.post(client, action="undelete", title="Page 08", token=token)
    assert "undelete" in restored, restored
    model["Page 08"] = (0, _words(_text(8)))
    return model


async def _ids(wiki: WikiHarness, client: httpx.AsyncClient, titles: list[str]) -> dict[str, int]:
    data = await wiki.api(client, action="query", titles="|".join(titles), formatversion="2")
    named = {n["to"]: n["from"] for n in data["query"].get("normalized", [])}
    return {named.get(p["title"], p["title"]): int(p["pageid"]) for p in data["query"]["pages"]}


async def test_hits_and_totals_as_a_brute_force_scan(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    model = await _build(wiki, client)
    ids = await _ids(wiki, client, list(model))
    for query in QUERIES:
        for namespaces in NAMESPACE_SETS:
            expected = sorted(
                ids[title]
                for title, (ns, words) in model.items()
                if ns in namespaces and _matches(query, words)
            )
            data = await wiki.api(
                client, action="query", list="search", srsearch=query, srwhat="text",
                srnamespace="|".join(map(str, namespaces)), srlimit="max", srprop="",
                formatversion="2",
            )  # fmt: skip
            found = [hit["pageid"] for hit in data["query"]["search"]]
            assert found == expected, (query, namespaces)
            assert data["query"]["searchinfo"]["totalhits"] == len(expected), (query, namespaces)
    # Titles: the moved page's new title, in its new namespace only.
    titles = await wiki.api(
        client, action="query", list="search", srsearch="moved", srwhat="title",
        srnamespace="0|1", formatversion="2",
    )  # fmt: skip
    assert [h["pageid"] for h in titles["query"]["search"]] == [ids["Talk:Moved alpha"]]
    assert titles["query"]["searchinfo"]["totalhits"] == 1
    # Offsets page through the same order, and the total stays the total.
    second = await wiki.api(
        client, action="query", list="search", srsearch="alpha", srwhat="text",
        srnamespace="0|1|4|12", srlimit="2", sroffset="2", formatversion="2",
    )  # fmt: skip
    every = sorted(ids[t] for t, (_ns, words) in model.items() if "alpha" in words)
    assert [h["pageid"] for h in second["query"]["search"]] == every[2:4]
    assert second["query"]["searchinfo"]["totalhits"] == len(every)
    assert second["continue"]["sroffset"] == 4


def _vocabulary(conn: Conn, table: str) -> list[tuple[Any, ...]]:
    conn.execute(f"CREATE VIRTUAL TABLE temp.{table}_vocab USING fts5vocab(main, {table}, 'col')")
    try:
        rows = conn.raw.execute(f"SELECT term, col, doc, cnt FROM temp.{table}_vocab").fetchall()
    finally:
        conn.execute(f"DROP TABLE temp.{table}_vocab")
    return sorted(rows)


async def test_slim_index_equals_a_rebuilt_one(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    if not wiki.db.is_sqlite:
        pytest.skip("searchslim is SQLite's")
    await _build(wiki, client)

    def compare(conn: Conn) -> None:
        kept = _vocabulary(conn, "searchslim")
        conn.execute(
            "CREATE VIRTUAL TABLE rebuilt USING fts5(ss_title, ss_text,"
            " content = '', detail = column, tokenize = 'unicode61 remove_diacritics 2')"
        )
        try:
            for page_id, ns, title, text in conn.raw.execute(
                "SELECT searchindex.rowid, page_namespace, si_title, si_text FROM searchindex"
                " JOIN page ON page_id = searchindex.rowid"
            ).fetchall():
                conn.execute(
                    "INSERT INTO rebuilt (rowid, ss_title, ss_text) VALUES (:id, :title, :text)",
                    {"id": search.slim_rowid(ns, page_id), "title": title, "text": text},
                )
            assert kept == _vocabulary(conn, "rebuilt")
            rowids = "SELECT rowid FROM {} ORDER BY rowid"
            kept_rows = conn.raw.execute(rowids.format("searchslim")).fetchall()
            assert kept_rows == conn.raw.execute(rowids.format("rebuilt")).fetchall()
        finally:
            conn.execute("DROP TABLE rebuilt")
        held = conn.raw.execute(
            "SELECT ssp_page, ssp_namespace FROM searchslim_page ORDER BY 1"
        ).fetchall()
        pages = conn.raw.execute("SELECT page_id, page_namespace FROM page ORDER BY 1").fetchall()
        assert held == pages

    await wiki.db.write(compare)


async def test_slim_and_positional_indexes_agree(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every single-word query answered from `searchslim` as the positional index answers it."""
    if not wiki.db.is_sqlite:
        pytest.skip("searchslim is SQLite's")
    await _build(wiki, client)
    queries = [q for q in QUERIES if "_" not in q] + ["beta*", "-alpha beta", "page"]

    def run(conn: Conn) -> list[tuple[list[int], int]]:
        answers = []
        for query in queries:
            for namespaces in NAMESPACE_SETS:
                for titles_only in (False, True):
                    hits = search.search(
                        conn, query, namespaces, titles_only=titles_only, limit=3, offset=1
                    )
                    answers.append(([int(r["page_id"]) for r in hits.rows], hits.total))
        return answers

    slim = await wiki.db.read(run)
    monkeypatch.setattr(search, "_single_words", lambda parsed: False)
    positional = await wiki.db.read(run)
    assert slim == positional
    assert any(total for _rows, total in slim)
