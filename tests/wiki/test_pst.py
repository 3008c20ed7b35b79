"""MediaWiki's pre-save transform: the pure function (cases recorded from MediaWiki 1.39 by
saving the same text there), and its two users — action=edit stores the transformed text, and
rvdifftotextpst diffs against it."""

from __future__ import annotations

import re

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

from atrium.wiki.titles import Namespaces, Title, TitleParser, standard_namespaces
from atrium.wiki.wikitext.pst import (
    Signer,
    escape_wikitext,
    pre_save_transform,
    signature_date,
)

_PARSER = TitleParser(Namespaces({n.id: n for n in standard_namespaces("Atrium Wiki")}))
_TEMPLATES = {
    (10, "Greet"): (
        "<noinclude>doc ~~~</noinclude>Hello {{{1|nobody}}} and {{{who}}} {{Other|{{{1}}}}} "
        "{{subst:Inner|x}}<includeonly>!</includeonly>"
    ),
    (10, "Inner"): "[{{{1}}}]",
    (10, "Loop"): "{{subst:Loop}}",
}
_TEXT = (
    "a ~~~ b ~~~~ c ~~~~~ <nowiki>~~~</nowiki> <!-- ~~~ -->\n"
    "[[Foo (bar)|]] [[Help:Foo (bar)|]] [[Foo, Baz|]] [[|Qux]] [[:Cat:Foo (x)|]]\n"
    "{{subst:Greet|one|who = two }} {{subst:Missing}} {{ subst:PAGENAME}} {{subst:lc:ABC}} "
    "{{Keep|{{subst:Inner|y}}}}\r\ntrailing   \n\n"
)
_SIG = "[[User:Admin|Admin]] ([[User talk:Admin|talk]])"
_DATE = "07:30, 21 November 2026 (UTC)"


def _pst(text: str, page: str = "Plain", signer: Signer | None = None) -> str:
    title = _PARSER.parse(page)
    return pre_save_transform(
        text,
        parser=_PARSER,
        page=Title(title.ns, title.dbkey),
        signer=signer or Signer("Admin", True),
        loader=lambda ns, key: _TEMPLATES.get((ns, key)),
        timestamp="20261121073000",
    )


@pytest.mark.parametrize(
    ("page", "reverse"), [("Page (ctx)", "[[Qux (ctx)|Qux]]"), ("Plain", "[[Qux]]")]
)
def test_matches_mediawiki(page: str, reverse: str) -> None:
    # What MediaWiki 1.39 stored for _TEXT on these two pages.
    expected = (
        f"a {_SIG} b {_SIG} {_DATE} c {_DATE} <nowiki>~~~</nowiki> <!-- ~~~ -->\n"
        f"[[Foo (bar)|Foo]] [[Help:Foo (bar)|Foo]] [[Foo, Baz|Foo]] {reverse} [[:Cat:Foo (x)|Foo]]\n"
        f"Hello one and two {{{{Other|one}}}} [x]! {{{{subst:Missing}}}} {page} abc "
        "{{Keep|[y]}}\ntrailing"
    )
    assert _pst(_TEXT, page) == expected


def test_signatures_of_anonymous_and_nicknamed_users() -> None:
    assert _pst("~~~", signer=Signer("127.0.0.1", False)) == (
        "[[Special:Contributions/127.0.0.1|127.0.0.1]]"
    )
    assert _pst("~~~", signer=Signer("Admin", True, nickname="Boss")) == (
        "[[User:Admin|Boss]] ([[User talk:Admin|talk]])"
    )
    fancy = Signer("Admin", True, nickname="'''Boss''' ~~~~", fancysig=True)
    assert _pst("~~~", signer=fancy) == "'''Boss''' "[:-1]
    assert escape_wikitext("O'Brien [x]") == "O&#39;Brien &#91;x&#93;"
    assert signature_date("20240105090807") == "09:08, 5 January 2024 (UTC)"


def test_subst_loops_and_parser_functions() -> None:
    assert _pst("{{subst:Loop}}") == (
        '<span class="error">Template loop detected: [[Template:Loop]]</span>'
    )
    assert _pst("{{subst:#if: x |yes|no}} {{#if:x|kept}}") == "yes {{#if:x|kept}}"
    assert _pst("{{SUBST:uc:abc}}{{safesubst:Inner|z}}") == "ABC[z]"
    assert _pst("nul\x00 <pre>~~~~</pre>") == "nul <pre>~~~~</pre>"


@pytest.mark.anyio
async def test_edit_stores_the_transformed_text(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Template:Inner", "[{{{1}}}]")
    await wiki.login(client, "Alice")
    token = await wiki.csrf(client)
    saved = await wiki.post(
        client, action="edit", title="Talk:Topic (x)", token=token, formatversion="2",
        text="Reply ~~~~ {{subst:Inner|v}} [[|Other]] [[Some (thing)|]]\n\n",
    )  # fmt: skip
    assert saved["edit"]["result"] == "Success", saved
    data = await wiki.api(
        client, action="query", prop="revisions", titles="Talk:Topic (x)", rvprop="content",
        rvslots="main", formatversion="2",
    )  # fmt: skip
    content = data["query"]["pages"][0]["revisions"][0]["slots"]["main"]["content"]
    assert re.fullmatch(
        r"Reply \[\[User:Alice\|Alice\]\] \(\[\[User talk:Alice\|talk\]\]\) "
        r"\d\d:\d\d, \d{1,2} [A-Z][a-z]+ \d{4} \(UTC\) \[v\] \[\[Other \(x\)\|Other\]\] "
        r"\[\[Some \(thing\)\|Some\]\]",
        content,
    ), content
    # Saving the same text again is no change: the comparison is made after the transform.
    again = await wiki.post(
        client, action="edit", title="Talk:Topic (x)", token=token, formatversion="2",
        text="{{subst:Inner|v}}",
    )  # fmt: skip
    same = await wiki.post(
        client, action="edit", title="Talk:Topic (x)", token=token, formatversion="2",
        text="[v]",
    )  # fmt: skip
    assert again["edit"]["result"] == "Success" and same["edit"].get("nochange") is True


@pytest.mark.anyio
async def test_difftotextpst(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Template:Inner", "[{{{1}}}]")
    await wiki.edit_page("Diffed", "[q] [[Foo (bar)|Foo]]")
    for pst, body_empty in (({"rvdifftotextpst": "1"}, True), ({}, False)):
        data = await wiki.api(
            client, action="query", prop="revisions", titles="Diffed", rvprop="ids",
            rvdifftotext="{{subst:Inner|q}} [[Foo (bar)|]]", formatversion="2", **pst,
        )  # fmt: skip
        body = data["query"]["pages"][0]["revisions"][0]["diff"]["body"]
        assert (body == "") is body_empty, body
