"""Special:RevisionDelete lists under its form only the log entries about the selected items, as
MediaWiki 1.39 does through `log_search`: the same scenario of revision and log-entry deletions as
on the reference (`data/mw139_revdel_log_extract.json`, recorded by
tools/capture_revdel_log_extract.py) shows each viewer the same sections with the same entries,
or "No matching items in log."; the suppression log stays out of reach of those who may not read
it. Also: the rows a deletion writes to `log_search` in its transaction, and the migration that
fills them for the entries written before."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from alembic import command
from tests.conftest import _admin_connect, _postgres_url
from tests.wiki.conftest import WikiHarness
from tests.wiki.test_revision_delete_files import _png, _revdel, _sign_in_hider, _upload, _versions
from tests.wiki.web_special_seed import sign_in

from atrium.core import migrations
from atrium.core.db import sqlalchemy_url
from atrium.wiki import schema
from atrium.wiki.changes.accounts import create_user

pytestmark = pytest.mark.anyio

RECORDED: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "mw139_revdel_log_extract.json").read_text()
)
OVERSIGHTER = "Extract oversighter"
SECTION = re.compile(r"<h2>(Deletion log|Suppression log)</h2>")
REASON = re.compile(r'<span class="comment">\((.*?)\)</span>')
ACTION_LINK = re.compile(r">(diff|change visibility)</a>")
TITLE = "Revdel log extract"


def _entry(line: str) -> list[Any]:
    """An entry as its reason and the names of its revision-deletion links."""
    reason = REASON.search(line)
    return [reason.group(1) if reason else None, ACTION_LINK.findall(line)]


def sections(html: str) -> list[list[Any]]:
    """[heading, its entries (reason, links) or None when it says it is empty] per log section, read
    as tools/capture_revdel_log_extract.py reads MediaWiki's page."""
    found: list[list[Any]] = []
    marks = list(SECTION.finditer(html))
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(html)
        chunk = html[mark.end() : end]
        empty = chunk.find("mw-warning-logempty")
        listed = chunk.find("<li")
        if empty != -1 and (listed == -1 or empty < listed):
            found.append([mark.group(1), None])
            continue
        lines = chunk[: chunk.find("</ul>")].split("<li")[1:]
        found.append([mark.group(1), [_entry(line) for line in lines]])
    return found


async def _scenario(wiki: WikiHarness, client: httpx.AsyncClient) -> tuple[list[int], list[int]]:
    """The recorded scenario, as the oversighter: the page's revisions and each step's log id."""
    wiki.db.write_sync(
        lambda conn: create_user(
            conn, OVERSIGHTER, "oversight-password-1", groups=["sysop", "suppress"]
        )
    )
    await sign_in(wiki, client, OVERSIGHTER)
    revisions = [
        await wiki.edit_page(TITLE, f"text {i}", user=OVERSIGHTER, summary=f"edit {i}")
        for i in range(RECORDED["revisions"])
    ]
    logs: list[int] = []
    for step in RECORDED["scenario"]:
        if step["type"] == "logging":
            ids, target = str(logs[step["log"]]), "Special:Log"
        else:
            ids, target = "|".join(str(revisions[i]) for i in step["ids"]), TITLE
        params = {"type": step["type"], "target": target, "ids": ids, "hide": step["hide"],
                  "reason": step["reason"], "token": await wiki.csrf(client)}  # fmt: skip
        if step.get("suppress"):
            params["suppress"] = "yes"
        done = await wiki.post(client, action="revisiondelete", **params)
        assert "error" not in done, (step, done)
        newest = await wiki.api(client, action="query", list="logevents", lelimit="1",
                                leprop="ids")  # fmt: skip
        logs.append(int(newest["query"]["logevents"][0]["logid"]))
    return revisions, logs


async def test_extract_lists_the_selected_items_entries_as_mediawiki_139(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    revisions, logs = await _scenario(wiki, client)
    differing = []
    async with wiki.client() as admin:
        await sign_in(wiki, admin, "Admin")
        for name, (kind, selected) in RECORDED["views"].items():
            if kind == "logging":
                params = {"type": "logging", "target": "Special:Log", "ids": str(logs[selected])}
            else:
                ids = ",".join(str(revisions[i]) for i in selected)
                params = {"type": "revision", "target": TITLE, "ids": ids}
            for who, viewer in (("oversighter", client), ("admin", admin)):
                page = await viewer.get("/w/index.php",
                                        params={"title": "Special:RevisionDelete", **params})  # fmt: skip
                seen = {"status": page.status_code, "sections": sections(page.text)}
                if who == "admin":  # no suppression-log entry reaches one without the right
                    assert "r0s" not in page.text and "r2s" not in page.text, name
                if seen != RECORDED["seen"][name][who]:
                    differing.append((name, who, seen, RECORDED["seen"][name][who]))
    assert differing == [], "(view, viewer, ours, MediaWiki's): " + repr(differing)


async def test_deletion_writes_its_items_and_authors_to_log_search(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    revisions, logs = await _scenario(wiki, client)
    LS = schema.log_search
    rows = await wiki.db.read(lambda conn: conn.all(sa.select(LS).where(LS.c.ls_log_id.in_(logs))))
    found = {(r["ls_log_id"], r["ls_field"], r["ls_value"]) for r in rows}
    actor = await wiki.db.read(
        lambda conn: conn.scalar(
            sa.select(schema.actor.c.actor_id).where(schema.actor.c.actor_name == OVERSIGHTER)
        )
    )
    first, both = logs[0], logs[2]
    assert (first, "rev_id", str(revisions[0])) in found
    assert {(both, "rev_id", str(revisions[0])), (both, "rev_id", str(revisions[1]))} <= found
    assert (first, "target_author_actor", str(actor)) in found
    assert (logs[4], "log_id", str(first)) in found
    # Nothing about the items no step changed.
    assert not any(value == str(revisions[3]) for _, field, value in found if field == "rev_id")


async def test_old_file_version_finds_its_entries_by_archive_name(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """An old file version (ids are its archive name's timestamp, `oi_archive_name`): its
    deletion is listed under the form; the file page's other log entries are not."""
    await wiki.login(client, "Admin")
    await _upload(wiki, client, "Rdw.png", _png(40), "first version")
    await _upload(wiki, client, "Rdw.png", _png(50), "second version")
    stamp = str((await _versions(wiki, client))[1]["archivename"]).split("!", 1)[0]
    async with wiki.client() as hider:
        await _sign_in_hider(wiki, hider)
        done = await _revdel(wiki, hider, type="oldimage", target="File:Rdw.png", ids=stamp,
                             hide="comment", reason="old version")  # fmt: skip
        assert done["revisiondelete"]["status"] == "Success", done
    LS = schema.log_search
    rows = await wiki.db.read(
        lambda conn: conn.all(sa.select(LS).where(LS.c.ls_field == "oi_archive_name"))
    )
    assert [r["ls_value"] for r in rows] == [stamp]
    async with wiki.client() as admin:
        await sign_in(wiki, admin, "Admin")
        page = await admin.get("/w/index.php", params={
            "title": "Special:RevisionDelete", "type": "oldimage", "target": "File:Rdw.png",
            "ids": stamp})  # fmt: skip
        assert sections(page.text) == [["Deletion log", [["old version", ["change visibility"]]]]]
        assert "second version" not in page.text.split("<h2>Deletion log</h2>", 1)[1]


# Rows written by the code before log_search: revision-deletion entries of each kind, a move
# with its null revision on its recent change, and entries that name no items.
EARLIER_ENTRIES = [
    (1, "delete", "revision", '{"type":"revision","ids":[11,12],"old":{},"new":{}}'),
    (2, "suppress", "revision", '{"type":"archive","ids":["20240101000000"]}'),
    (3, "delete", "event", '{"type":"logging","ids":[1]}'),
    (4, "move", "move", '{"4::target":"B"}'),
    (5, "delete", "revision", "not json"),
    (6, "delete", "delete", '{"type":"revision","ids":[99]}'),
    (7, "suppress", "revision", '{"type":"filearchive","ids":["5","5"]}'),
]
FILLED = {
    (1, "rev_id", "11"),
    (1, "rev_id", "12"),
    (2, "ar_timestamp", "20240101000000"),
    (3, "log_id", "1"),
    (4, "associated_rev_id", "77"),
    (7, "fa_id", "5"),
}


def _fill_earlier(conn: sa.Connection) -> None:
    for log_id, log_type, action, params in EARLIER_ENTRIES:
        conn.execute(
            sa.text(
                "INSERT INTO logging (log_id, log_type, log_action, log_timestamp, log_actor,"
                " log_namespace, log_title, log_comment_id, log_params)"
                " VALUES (:id, :type, :action, '20240101000000', 1, 0, 'A', 1, :params)"
            ),
            {"id": log_id, "type": log_type, "action": action, "params": params},
        )
    conn.execute(
        sa.text(
            "INSERT INTO recentchanges (rc_timestamp, rc_actor, rc_namespace, rc_title,"
            " rc_comment_id, rc_this_oldid, rc_type, rc_logid) VALUES"
            " ('20240101000000', 1, 0, 'A', 1, 77, 3, 4),"
            " ('20240101000000', 1, 0, 'A', 1, 78, 0, 0)"
        )
    )


def _migrated_from_earlier(url: str | None, path: Path) -> set[tuple[int, str, str]]:
    """The log_search rows of a database migrated to just before it, filled by that code's
    rules, then migrated to the head."""
    command.upgrade(migrations.alembic_config("wiki", url, path), "email2")
    engine = sa.create_engine(sqlalchemy_url(url, path), poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as conn:
            if url is not None:
                conn.execute(sa.text('SET search_path TO "wiki"'))
            _fill_earlier(conn)
        migrations.upgrade("wiki", url, path)
        with engine.connect() as conn:
            if url is not None:
                conn.execute(sa.text('SET search_path TO "wiki"'))
            rows = conn.execute(sa.text("SELECT ls_log_id, ls_field, ls_value FROM log_search"))
            return {(int(r[0]), str(r[1]), str(r[2])) for r in rows}
    finally:
        engine.dispose()


def test_migration_fills_log_search_on_sqlite(tmp_path: Path) -> None:
    assert _migrated_from_earlier(None, tmp_path / "wiki.sqlite3") == FILLED


def test_migration_fills_log_search_on_postgresql(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    request.getfixturevalue("postgres_server")  # skips (fails in CI) without PostgreSQL
    name = f"atrium_t_{uuid.uuid4().hex[:12]}"
    with _admin_connect() as admin:  # type: ignore[attr-defined]
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        assert _migrated_from_earlier(_postgres_url(name), tmp_path / "unused") == FILLED
    finally:
        with _admin_connect() as admin:  # type: ignore[attr-defined]
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
