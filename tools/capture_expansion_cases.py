"""Record how MediaWiki 1.39 expands templates where the order of expansion shows: arguments
used or not, `{{!}}` and comments inside arguments, a template's output that looks like markup,
extension tags with attributes, and the limit report's counts of each; and the link tables
action=parse gives for texts that show how the page is read, as test data.

    .venv/bin/python tools/capture_expansion_cases.py

Against the reference wiki (`../shared/reference/mediawiki/mediawiki-ref.sh start`), which has no
ParserFunctions: only core's magic words are asked. Saves the `Template:Xp …` pages it needs, then
asks `action=expandtemplates` and `action=parse` (limit report, templates)
of each text. Writes `tests/wiki/data/mw139_expansion_cases.json`, which
tests/wiki/test_mw139_expansion.py compares the wiki's answers with.
"""

from __future__ import annotations

import json
from pathlib import Path

from mwref_session import admin_client, api, edit

OUT = Path(__file__).resolve().parents[1] / "tests" / "wiki" / "data" / "mw139_expansion_cases.json"
TITLE = "Xp page"
TEMPLATES = {
    "Template:Xp greet": "Hello {{{1|world}}} {{{name|}}}!",
    "Template:Xp lb": "{{",
    "Template:Xp rb": "}}",
    "Template:Xp pass": "{{Xp greet|{{{1}}}}}",
    "Template:Xp unused": "none",
    "Template:Xp eq": "[{{{1|}}}][{{{a|}}}]",
    "Template:Xp inc": "<noinclude>doc</noinclude><includeonly>inc</includeonly>body",
    "Template:Xp only": "x<onlyinclude>only{{{1|}}}</onlyinclude>y",
    "Template:Xp d0": "a{{Xp d1}}",
    "Template:Xp d1": "b{{Xp d2|{{{1|}}}}}",
    "Template:Xp d2": "c{{{1|}}}",
}
# Only core's magic words (the reference has no ParserFunctions). Comments are kept (includecomments)
# for the text that has `<!--kept-->`: kept in a title, a comment makes MediaWiki's expandtemplates
# read no title there, where its parser (and ours, always) drops it and reads one.
CASES = (
    "{{Xp greet|you|name=Bob}} <nowiki>abc</nowiki>",
    "{{Xp greet|a<!--c-->}} <!--kept-->",
    '<pre class="x">{{Xp greet}}</pre>',
    "{{Xp greet|{{!}}}}",
    "{{Xp lb}}Xp greet{{Xp rb}}",
    "{{Xp missing|{{Xp greet}}}}",
    "{{Xp greet<!--c-->|x}}",
    "{{Xp unused|{{Xp greet}}|name={{Xp greet|x}}}}",
    "{{Xp greet|x}} {{Xp greet|x}}",
    "{{Xp pass|x}}",
    "{{Xp eq|a=[[b|c]]}}",
    "{{Xp eq|[[a=b]]}}",
    "{{Xp eq|1=z|a}}",
    "{{Xp inc}} {{Xp only|q}}",
    "{{lc:{{Xp greet|X}}}}",
    "{{Xp d0}}",
    "{{{1|{{Xp greet}}}}} {{{1}}}",
)
# Page names as the name magic words give them: as text (wfEscapeWikiText), not markup.
NAMED_TITLES = ("Xp O'Brien;x", "Talk:Xp a=b __c")
NAME_WORDS = "{{PAGENAME}}|{{PAGENAMEE}}|{{FULLPAGENAME}}|{{FULLPAGENAMEE}}"
# A page sorted under its escaped name and under a key written with references: the page
# property keeps the escapes, the categories' sort key prefixes read them.
SORTED_PAGE = "Xp O'Brien;x"
SORTED_TEXT = "{{DEFAULTSORT:{{PAGENAME}}}}[[Category:Xp sort]][[Category:Xp sort2|O&#39;K&amp;]]"
# Texts whose link tables show how the page is read: inclusion tags, comments and extension tags,
# free and bracketed URLs, links nested in a file's caption, links in an argument never used.
LINK_TEXTS = (
    "<includeonly>[[Category:Xp hidden]][[Xp inc link]]</includeonly>"
    "<noinclude>[[Xp noinc link]]</noinclude>",
    "[[Xp a<!-- c -->b]]",
    "see http://example.org/a, and (http://example.org/b) or http://example.org/c). "
    "mailto:me@example.org.",
    "[[File:Xp pic.png|thumb|caption [[Xp inner]] and [[Xp second|2]]]]",
    '<pre class="x">[[Xp in pre]] http://example.org/pre</pre> <nowiki>[[Xp in nowiki]]</nowiki>',
    "[http://example.org/x label http://example.org/inlabel] [//example.org/rel] [news:xp.group n]",
    "[[Category:Xp key|O&#39;K]] [[:Category:Xp colon]] [[Media:Xp m.png]] [[:File:Xp f.png]]",
    "{{Xp greet|[[Xp in arg]]}} {{Xp unused|[[Xp in unused arg]]}}",
    "[[Xp a|b|c]] [[ Xp spaced ]] [[xp lower#frag]] [[#self]]",
    "http://example.org/p?q=1&r=2 https://example.org/end.",
)
REPORT = {
    "visited": "limitreport-ppvisitednodes",
    "depth": "limitreport-expansiondepth",
    "postexpand": "limitreport-postexpandincludesize",
    "argsize": "limitreport-templateargumentsize",
}


def main() -> None:
    client = admin_client()
    for title, text in TEMPLATES.items():
        edit(client, title, text, "expansion capture")
    cases = []
    for text in CASES:
        comments = {"includecomments": "1"} if "<!--kept-->" in text else {}
        expanded = api(
            client, action="expandtemplates", title=TITLE, text=text, prop="wikitext",
            **comments,
        )["expandtemplates"]["wikitext"]  # fmt: skip
        parsed = api(
            client, action="parse", title=TITLE, text=text, contentmodel="wikitext",
            prop="limitreportdata|templates",
        )["parse"]  # fmt: skip
        report = {e["name"]: e["0"] for e in parsed["limitreportdata"]}
        cases.append(
            {
                "text": text,
                "includecomments": bool(comments),
                "wikitext": expanded,
                "templates": sorted(t["title"] for t in parsed["templates"]),
                **{key: report[name] for key, name in REPORT.items()},
            }
        )
    names = {
        title: api(client, action="expandtemplates", title=title, text=NAME_WORDS, prop="wikitext")[
            "expandtemplates"
        ]["wikitext"]
        for title in NAMED_TITLES
    }
    edit(client, SORTED_PAGE, SORTED_TEXT, "expansion capture")
    prefixes = {}
    for category in ("Category:Xp sort", "Category:Xp sort2"):
        members = api(
            client, action="query", list="categorymembers", cmtitle=category,
            cmprop="title|sortkeyprefix",
        )["query"]["categorymembers"]  # fmt: skip
        prefixes[category] = [m["sortkeyprefix"] for m in members if m["title"] == SORTED_PAGE]
    props = api(client, action="query", prop="pageprops", titles=SORTED_PAGE)["query"]["pages"]
    links = []
    for text in LINK_TEXTS:
        parsed = api(
            client, action="parse", title=TITLE, text=text, contentmodel="wikitext",
            prop="links|categories|externallinks|images",
        )["parse"]  # fmt: skip
        links.append(
            {
                "text": text,
                "links": sorted(link["title"] for link in parsed["links"]),
                "categories": sorted([c["category"], c["sortkey"]] for c in parsed["categories"]),
                "externallinks": sorted(parsed["externallinks"]),
                "images": sorted(parsed["images"]),
            }
        )
    OUT.write_text(
        json.dumps(
            {
                "_about": "Recorded by tools/capture_expansion_cases.py from MediaWiki 1.39 "
                "(mediawiki-ref.sh, without ParserFunctions): each text's expandtemplates "
                "wikitext (comments kept when includecomments), the templates action=parse lists and its limit "
                "report's counts; the name magic words of a few titles; a page's sort key prefixes "
                "and defaultsort property; the links, categories, external links and images "
                "action=parse lists for a few texts.",
                "templates": TEMPLATES,
                "cases": cases,
                "name_words": NAME_WORDS,
                "names": names,
                "links": links,
                "sorted": {
                    "title": SORTED_PAGE,
                    "text": SORTED_TEXT,
                    "sortkeyprefixes": prefixes,
                    "defaultsort": props[0]["pageprops"]["defaultsort"],
                },
            },
            indent=1,
            ensure_ascii=False,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
