"""`{name}`-only linkifier templates are expanded without uritemplate, with its very results."""

from __future__ import annotations

import random
import string

import pytest
from uritemplate import URITemplate

from atrium.chat.markdown.linkifiers import SimpleTemplate

ALPHABET = string.printable + "éü中😀%{}/?#&=+ ,;"
SIMPLE = [
    "https://t.example.com/{id}",
    "https://github.com/{org}/{repo}/issues/{id}",
    "https://a.example/{a}{b}",
    "{id}",
    "https://x.example/?q={q}&r=1",
]


@pytest.mark.parametrize("template", SIMPLE)
def test_simple_templates_expand_as_uritemplate_does(template: str) -> None:
    simple = SimpleTemplate.parse(template)
    assert simple is not None
    general = URITemplate(template)
    rng = random.Random(template)
    for _ in range(2000):
        names = [n for n in ("id", "org", "repo", "a", "b", "q") if rng.random() < 0.8]
        values = {n: "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 8))) for n in names}
        assert simple.expand(values) == str(general.expand(**values))


@pytest.mark.parametrize(
    "template",
    [
        "https://x/{+id}",
        "https://x/{#id}",
        "https://x/{id*}",
        "https://x/{id:3}",
        "https://x/{a,b}",
    ],
)
def test_other_expressions_keep_uritemplate(template: str) -> None:
    assert SimpleTemplate.parse(template) is None
