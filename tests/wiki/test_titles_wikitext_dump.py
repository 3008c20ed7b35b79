"""Title normalisation, link extraction, and an XML export -> import round trip."""

from __future__ import annotations

import io

import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness

from atrium.wiki import schema
from atrium.wiki.dump import export_dump, import_dump
from atrium.wiki.titles import InvalidTitle, Namespaces, TitleParser
from atrium.wiki.wikitext.links import extract_links

PARSER = TitleParser(Namespaces.standard("Atrium Wiki"), ["fr", "de"])


@pytest.mark.parametrize(
    ("text", "ns", "dbkey"),
    [
        ("apple", 0, "Apple"),
        ("  talk:main_page ", 1, "Main_page"),
        ("Image:Foo.png", 6, "Foo.png"),
        ("Project:About", 4, "About"),
        ("atrium wiki talk:About", 5, "About"),
        (":Category:Fruit", 14, "Fruit"),
        ("Apple#History", 0, "Apple"),
        ("A&amp;B", 0, "A&B"),
    ],
)
def test_title_normalisation(text: str, ns: int, dbkey: str) -> None:
    title = PARSER.parse(text)
    assert (title.ns, title.dbkey) == (ns, dbkey)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Bad<title>", "title-invalid-characters"),
        ("", "title-invalid-empty"),
        ("Talk:", "title-invalid-empty"),
        ("../x", "title-invalid-relative"),
        ("a~~~b", "title-invalid-magic-tilde"),
        ("x" * 256, "title-invalid-too-long"),
        ("A%41", "title-invalid-characters"),
    ],
)
def test_invalid_titles(text: str, key: str) -> None:
    with pytest.raises(InvalidTitle) as info:
        PARSER.parse(text)
    assert info.value.key == key


def test_link_extraction() -> None:
    links = extract_links(
        "{{Infobox|x=[[Inner]]}} [[Banana|b]] [[:Category:Shown]] [[Category:Fruit|Sort]] "
        "[[File:A.png|thumb|[[Caption link]]]] [[fr:Pomme]] https://example.org {{#if:1|2}} "
        "{{PAGENAME}} {{:Main Page}} [https://x.example/y label]",
        PARSER,
        frozenset({"fr"}),
    )
    assert links.pages == {(0, "Inner"), (0, "Banana"), (14, "Shown"), (0, "Caption_link")}
    assert links.templates == {(10, "Infobox"), (0, "Main_Page")}
    assert links.categories == {"Fruit": "Sort"}
    assert links.images == {"A.png"}
    assert links.langlinks == {"fr": "Pomme"}
    assert links.external == {"https://example.org", "https://x.example/y"}
    redirect = extract_links("#REDIRECT [[Apple#History]]", PARSER, frozenset())
    assert redirect.redirect is not None
    assert (redirect.redirect.dbkey, redirect.redirect.fragment) == ("Apple", "History")


@pytest.mark.anyio
async def test_export_import_round_trip(wiki: WikiHarness) -> None:
    await wiki.edit_page("Apple", "first [[Banana]]", summary="one")
    await wiki.edit_page(
        "Apple", "second [[Cherry]] [[Category:Fruit]]", user="Alice", summary="two"
    )
    await wiki.edit_page("Pomme", "#REDIRECT [[Apple]]")
    out = io.StringIO()
    assert export_dump(wiki.db, wiki.site, out) == 2
    dump = out.getvalue()
    assert "<comment>two</comment>" in dump

    def wipe(conn: object) -> None:
        for table in reversed(schema.metadata.sorted_tables):
            if table.name.startswith(
                (
                    "page",
                    "revision",
                    "text",
                    "comment",
                    "categorylinks",
                    "redirect",
                    "templatelinks",
                    "imagelinks",
                    "externallinks",
                    "langlinks",
                    "change_tag",
                )
            ):
                conn.execute(sa.delete(table))  # type: ignore[attr-defined]

    wiki.db.write_sync(wipe)
    stats = import_dump(wiki.db, wiki.site, io.BytesIO(dump.encode()))
    assert (stats.pages, stats.revisions) == (2, 3)
    again = import_dump(wiki.db, wiki.site, io.BytesIO(dump.encode()))
    assert (again.pages, again.revisions) == (0, 0)
    async with wiki.client() as client:
        data = await wiki.api(
            client,
            action="query",
            prop="revisions",
            titles="Apple",
            rvprop="content|user|comment",
            rvslots="main",
            rvlimit="5",
            formatversion="2",
        )
        revisions = data["query"]["pages"][0]["revisions"]
        assert [r["comment"] for r in revisions] == ["two", "one"]
        assert revisions[0]["user"] == "Alice"
        assert revisions[0]["slots"]["main"]["content"] == "second [[Cherry]] [[Category:Fruit]]"
        info = await wiki.api(
            client, action="query", titles="Pomme", redirects="1", formatversion="2"
        )
        assert info["query"]["redirects"] == [{"from": "Pomme", "to": "Apple"}]
    cats = wiki.db.read_sync(lambda conn: conn.scalars(sa.select(schema.categorylinks.c.cl_to)))
    assert cats == ["Fruit"]
