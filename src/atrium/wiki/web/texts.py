"""Interface texts of the pages, as plain text: MediaWiki's English message by key, its `$1`
parameters filled in and its markup stripped (the templates escape the result)."""

from __future__ import annotations

import re

from atrium.wiki.messages.messages import strip_markup
from atrium.wiki.messages.store import MESSAGES

_PARAM = re.compile(r"\$(\d+)")


def text(key: str, *params: object) -> str:
    template = MESSAGES.get(key)
    if template is None:
        return f"\u29fc{key}\u29fd"  # MediaWiki shows a missing message as ⧼key⧽
    values = [str(p) for p in params]

    def fill(match: re.Match[str]) -> str:
        index = int(match.group(1)) - 1
        return values[index] if 0 <= index < len(values) else match.group(0)

    return strip_markup(_PARAM.sub(fill, template)).replace("\n", " ")
