"""The preprocessor tree of small texts, one per construct the scanner handles: templates and
their parts, template arguments, brackets left unclosed, headings, comments that take their line,
extension and inclusion tags, and `<onlyinclude>` (MediaWiki 1.39's `parsetree` for the same)."""

from __future__ import annotations

import pytest

from atrium.wiki.wikitext.preprocess import parsetree, preprocess, to_xml

CASES = [
    (
        "{{a|b|c=d}}",
        False,
        '<root><template><title>a</title><part><name index="1"/><value>b</value></part><part><name>c</name><equals>=</equals><value>d</value></part></template></root>',
    ),
    (
        "{{{1|x}}}",
        False,
        '<root><tplarg><title>1</title><part><name index="1"/><value>x</value></part></tplarg></root>',
    ),
    (
        "{{{{{1}}}}}",
        False,
        "<root><template><title><tplarg><title>1</title></tplarg></title></template></root>",
    ),
    (
        "{{a|[[b|c]]}}",
        False,
        '<root><template><title>a</title><part><name index="1"/><value>[[b|c]]</value></part></template></root>',
    ),
    ("}} {{a", False, "<root>}} {{a</root>"),
    ("[[a|{{b}}]]", False, "<root>[[a|<template><title>b</title></template>]]</root>"),
    ("\n== h ==\n", False, '<root>\n<h level="2" i="1">== h ==</h>\n</root>'),
    (
        "== h == <!-- c -->\ntext",
        False,
        '<root><h level="2" i="1">== h == <comment>&lt;!-- c --&gt;</comment></h>\ntext</root>',
    ),
    ("a\n  <!-- c -->  \nb", False, "<root>a\n<comment>  &lt;!-- c --&gt;  \n</comment>b</root>"),
    (
        "<nowiki>{{a}}</nowiki><pre/>",
        False,
        "<root><ext><name>nowiki</name><attr/><inner>{{a}}</inner><close>&lt;/nowiki&gt;</close></ext><ext><name>pre</name><attr/></ext></root>",
    ),
    (
        "<includeonly>x</includeonly><noinclude>y</noinclude>",
        False,
        "<root><ignore>&lt;includeonly&gt;x&lt;/includeonly&gt;</ignore><ignore>&lt;noinclude&gt;</ignore>y<ignore>&lt;/noinclude&gt;</ignore></root>",
    ),
    (
        "<includeonly>x</includeonly><noinclude>y</noinclude>",
        True,
        "<root><ignore>&lt;includeonly&gt;</ignore>x<ignore>&lt;/includeonly&gt;</ignore><ignore>&lt;noinclude&gt;y&lt;/noinclude&gt;</ignore></root>",
    ),
    (
        "a<onlyinclude>b</onlyinclude>c",
        True,
        "<root><ignore>a&lt;onlyinclude&gt;</ignore>b<ignore>&lt;/onlyinclude&gt;c</ignore></root>",
    ),
    (
        "<pre>unclosed {{a}}",
        False,
        "<root>&lt;pre&gt;unclosed <template><title>a</title></template></root>",
    ),
    (
        "{{a|b=c=d|e}}",
        False,
        '<root><template><title>a</title><part><name>b</name><equals>=</equals><value>c=d</value></part><part><name index="1"/><value>e</value></part></template></root>',
    ),
    ("{{\na}}", False, "<root><template><title>\na</title></template></root>"),
    ("x\n{{a}}", False, '<root>x\n<template lineStart="1"><title>a</title></template></root>'),
    (
        "{{a|=}}",
        False,
        "<root><template><title>a</title><part><name/><equals>=</equals><value/></part></template></root>",
    ),
    ("<!-- unclosed", False, "<root><comment>&lt;!-- unclosed</comment></root>"),
]


@pytest.mark.parametrize(("text", "for_inclusion", "xml"), CASES)
def test_preprocess_tree(text: str, for_inclusion: bool, xml: str) -> None:
    assert to_xml(preprocess(text, for_inclusion)) == xml


def test_parsetree_is_the_page_tree() -> None:
    assert parsetree("{{a}}") == to_xml(preprocess("{{a}}"))
