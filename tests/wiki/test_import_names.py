"""Dump import as MediaWiki's importDump.php: `imported>` contributor names, foreign namespaces,
link tables from the newest revision, batches larger than one page."""

from __future__ import annotations

import io
from typing import Any

import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness

from atrium.wiki import schema
from atrium.wiki.dump import import_dump

pytestmark = pytest.mark.anyio

NAMESPACES = {
    0: "",
    1: "Talk",
    2: "User",
    4: "Wikipedia",
    10: "Template",
    12: "Help",
    14: "Category",
    100: "Portal",
    112: "Help",  # a foreign id whose name is a local namespace
}


def _revision(ts: str, who: str, text: str, *, ip: bool = False) -> str:
    contributor = f"<ip>{who}</ip>" if ip else f"<username>{who}</username><id>{len(who)}</id>"
    return (
        f"<revision><timestamp>{ts}</timestamp><contributor>{contributor}</contributor>"
        f'<comment>by {who}</comment><text xml:space="preserve">{text}</text></revision>'
    )


def _dump(pages: list[tuple[str, int, list[str]]], siteinfo: bool = True) -> bytes:
    parts = ['<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11">']
    if siteinfo:
        parts.append("<siteinfo><sitename>Elsewhere</sitename><namespaces>")
        parts.extend(
            f'<namespace key="{k}" case="first-letter">{v}</namespace>'
            for k, v in NAMESPACES.items()
        )
        parts.append("</namespaces></siteinfo>")
    for title, ns, revisions in pages:
        parts.append(f"<page><title>{title}</title><ns>{ns}</ns>{''.join(revisions)}</page>")
    parts.append("</mediawiki>")
    return "".join(parts).encode()


def _rows(wiki: WikiHarness, query: Any) -> list[Any]:
    return list(wiki.db.read_sync(lambda conn: [tuple(r.values()) for r in conn.all(query)]))


async def test_contributors_without_account_get_the_imported_prefix(wiki: WikiHarness) -> None:
    dump = _dump(
        [
            (
                "Apple",
                0,
                [
                    _revision("2020-01-01T00:00:00Z", "Stranger", "one"),
                    _revision("2020-01-02T00:00:00Z", "Alice", "two"),
                    _revision("2020-01-03T00:00:00Z", "192.0.2.7", "three", ip=True),
                    _revision("2020-01-04T00:00:00Z", "Other>Someone", "four"),
                ],
            )
        ]
    )
    stats = import_dump(wiki.db, wiki.site, io.BytesIO(dump))
    assert (stats.pages, stats.revisions) == (1, 4)
    async with wiki.client() as client:
        data = await wiki.api(
            client,
            action="query",
            prop="revisions",
            titles="Apple",
            rvprop="user|userid",
            rvlimit="10",
            rvdir="newer",
            formatversion="2",
        )
    users = [(r["user"], r["userid"]) for r in data["query"]["pages"][0]["revisions"]]
    alice = await wiki._user_id("Alice")
    assert users == [
        ("imported>Stranger", 0),
        ("Alice", alice),
        ("192.0.2.7", 0),
        ("Other>Someone", 0),
    ]
    actors = dict(
        _rows(
            wiki,
            sa.select(schema.actor.c.actor_name, schema.actor.c.actor_user).where(
                schema.actor.c.actor_name.in_(["imported>Stranger", "192.0.2.7"])
            ),
        )
    )
    assert actors == {"imported>Stranger": None, "192.0.2.7": None}


async def test_username_prefix_and_no_local_users(wiki: WikiHarness) -> None:
    dump = _dump(
        [
            (
                "Banana",
                0,
                [
                    _revision("2020-01-01T00:00:00Z", "Stranger", "one"),
                    _revision("2020-01-02T00:00:00Z", "Alice", "two"),
                ],
            )
        ]
    )
    import_dump(
        wiki.db, wiki.site, io.BytesIO(dump), username_prefix="en", assign_known_users=False
    )
    names = _rows(
        wiki,
        sa.select(schema.actor.c.actor_name)
        .select_from(
            schema.revision.join(
                schema.actor, schema.actor.c.actor_id == schema.revision.c.rev_actor
            )
        )
        .order_by(schema.revision.c.rev_timestamp),
    )
    assert names == [("en>Stranger",), ("en>Alice",)]


async def test_foreign_namespaces_are_mapped_as_mediawiki_does(wiki: WikiHarness) -> None:
    rev = [_revision("2020-01-01T00:00:00Z", "Alice", "text [[Apple]]")]
    dump = _dump(
        [
            ("Wikipedia:About", 4, rev),  # built-in id: the local project namespace
            ("Portal:Fruit", 100, rev),  # unknown custom namespace: main namespace, full title
            ("Help:Moved", 112, rev),  # custom id whose name is local: that namespace
            ("Talk:Apple", 1, rev),
            ("Plain", 0, rev),
        ]
    )
    stats = import_dump(wiki.db, wiki.site, io.BytesIO(dump))
    assert stats.pages == 5
    pages = sorted(_rows(wiki, sa.select(schema.page.c.page_namespace, schema.page.c.page_title)))
    assert pages == [(0, "Plain"), (0, "Portal:Fruit"), (1, "Apple"), (4, "About"), (12, "Moved")]
    links = _rows(wiki, sa.select(schema.pagelinks.c.pl_title).distinct())
    assert links == [("Apple",)]


async def test_without_siteinfo_titles_are_read_as_local(wiki: WikiHarness) -> None:
    rev = [_revision("2020-01-01T00:00:00Z", "Alice", "x")]
    import_dump(wiki.db, wiki.site, io.BytesIO(_dump([("Help:Local", 12, rev)], siteinfo=False)))
    assert _rows(wiki, sa.select(schema.page.c.page_namespace, schema.page.c.page_title)) == [
        (12, "Local")
    ]


async def test_links_come_from_the_newest_revision_and_batches_span_pages(
    wiki: WikiHarness,
) -> None:
    pages = [
        (
            f"Page {i}",
            0,
            [
                _revision("2020-01-01T00:00:00Z", "Alice", f"old [[Old {i}]]"),
                _revision("2020-02-01T00:00:00Z", "Stranger", f"new [[New {i}]] [[Category:C]]"),
            ],
        )
        for i in range(7)
    ]
    stats = import_dump(wiki.db, wiki.site, io.BytesIO(_dump(pages)), batch_pages=3)
    assert (stats.pages, stats.revisions) == (7, 14)
    titles = sorted(t for (t,) in _rows(wiki, sa.select(schema.pagelinks.c.pl_title)))
    assert titles == [f"New_{i}" for i in range(7)]
    assert len(_rows(wiki, sa.select(schema.categorylinks.c.cl_from))) == 7
    parents = _rows(
        wiki,
        sa.select(schema.revision.c.rev_id, schema.revision.c.rev_parent_id).order_by(
            schema.revision.c.rev_id
        ),
    )
    # Each page's second revision has the first as parent; page_latest is the second.
    for (first, parent0), (_second, parent1) in zip(parents[::2], parents[1::2], strict=True):
        assert parent0 == 0 and parent1 == first
    latest = {r for (r,) in _rows(wiki, sa.select(schema.page.c.page_latest))}
    assert latest == {second for second, _ in parents[1::2]}
    # A later dump adds only newer revisions, onto the existing pages.
    more = [
        (
            "Page 0",
            0,
            [
                _revision("2020-02-01T00:00:00Z", "Stranger", "same"),
                _revision("2020-03-01T00:00:00Z", "Alice", "third [[Third]]"),
            ],
        )
    ]
    again = import_dump(wiki.db, wiki.site, io.BytesIO(_dump(more)))
    assert (again.pages, again.revisions) == (1, 1)
    from_page0 = _rows(
        wiki,
        sa.select(schema.pagelinks.c.pl_title)
        .select_from(
            schema.pagelinks.join(schema.page, schema.page.c.page_id == schema.pagelinks.c.pl_from)
        )
        .where(schema.page.c.page_title == "Page_0"),
    )
    assert from_page0 == [("Third",)]
