"""Zulip's own markdown fixture, case by case (whitespace between tags aside)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from atrium.chat.markdown import RenderContext, render_markdown
from tests.chat.markdown.fixture_expectations import LINKIFY_XFAILS, REGULAR_XFAILS
from tests.reference import reference_path, skip_without

FIXTURE = reference_path("zulip-markdown-fixture")
# The fixture renders for a realm at this URL (its fragment-link cases rely on it).
REALM_URL = "http://zulip.testserver"
# Zulip's test settings for the external-content proxy (its video cases rely on
# them); Zulip's servers render math with KaTeX.
CAMO_URI = "https://external-content.zulipcdn.net/external_content/"
CAMO_KEY = "dummy"
_BETWEEN_TAGS = re.compile(r">\s+<")


pytestmark = skip_without("zulip-markdown-fixture")


def _load() -> dict[str, Any]:
    if not FIXTURE.exists():  # the module is skipped; collect no cases
        return {"regular_tests": [], "linkify_tests": []}
    data: dict[str, Any] = json.loads(FIXTURE.read_text())
    return data


def normalize(html: str) -> str:
    return _BETWEEN_TAGS.sub("><", html.strip())


_MATH_START = re.compile(r'<span class="(katex-display|katex)">')
_SPAN = re.compile(r"<span\b|</span>")


def formulas(html: str) -> tuple[str, list[tuple[str, str]]]:
    """The HTML with each formula's markup replaced by a marker, and the formulas (kind, markup).

    Zulip renders math with KaTeX (HTML plus MathML); Atrium renders MathML only, inside the same
    outer `span.katex` / `span.katex-display`. So the fixture's math cases are compared around
    the formulas, and each formula only by kind and by being MathML."""
    out: list[str] = []
    found: list[tuple[str, str]] = []
    pos = 0
    while (start := _MATH_START.search(html, pos)) is not None:
        depth, cursor = 0, start.start()
        for tag in _SPAN.finditer(html, cursor):
            depth += 1 if tag.group() != "</span>" else -1
            if depth == 0:
                cursor = tag.end()
                break
        out.append(html[pos : start.start()] + f'<span class="{start.group(1)}">(formula)</span>')
        found.append((start.group(1), html[start.start() : cursor]))
        pos = cursor
    return "".join(out) + html[pos:], found


def _regular_params() -> list[Any]:
    params = []
    for case in _load()["regular_tests"]:
        marks = []
        if case["name"] in REGULAR_XFAILS:
            marks.append(pytest.mark.xfail(reason=REGULAR_XFAILS[case["name"]], strict=True))
        params.append(pytest.param(case, id=case["name"], marks=marks))
    return params


def _linkify_params() -> list[Any]:
    params = []
    for inp, template, url in _load()["linkify_tests"]:
        marks = []
        if inp in LINKIFY_XFAILS:
            marks.append(pytest.mark.xfail(reason=LINKIFY_XFAILS[inp], strict=True))
        params.append(pytest.param(inp, template, url, id=inp[:60], marks=marks))
    return params


def test_fixture_is_the_one_described() -> None:
    data = _load()
    assert len(data["regular_tests"]) == 179
    assert len(data["linkify_tests"]) == 71
    names = {case["name"] for case in data["regular_tests"]}
    assert set(REGULAR_XFAILS) <= names


@pytest.mark.parametrize("case", _regular_params())
def test_regular_case(case: dict[str, Any]) -> None:
    ctx = RenderContext(
        realm_url=REALM_URL,
        translate_emoticons=bool(case.get("translate_emoticons")),
        camo_uri=CAMO_URI,
        camo_key=CAMO_KEY,
        render_math=True,
    )
    result = render_markdown(case["input"], ctx)
    assert not result.failed
    expected = normalize(case["expected_output"])
    if "katex" not in expected:
        assert normalize(result.html) == expected
        return
    ours, our_math = formulas(normalize(result.html))
    theirs, their_math = formulas(expected)
    assert ours == theirs
    assert [kind for kind, _ in our_math] == [kind for kind, _ in their_math]
    for _, markup in our_math:
        assert '<math xmlns="http://www.w3.org/1998/Math/MathML"' in markup


@pytest.mark.parametrize(("text", "template", "url"), _linkify_params())
def test_linkify_case(text: str, template: str, url: str) -> None:
    expected = template
    if url:
        if url.startswith("http"):
            href = url
        elif "@" in url:
            href = "mailto:" + url
        else:
            href = "http://" + url
        expected = template.replace("%s", f'<a href="{href}">{url}</a>')
    result = render_markdown(text, RenderContext(realm_url=REALM_URL))
    assert normalize(result.html) == normalize(expected)
