"""wfEscapeWikiText: text that must reach a message or a page as itself, not as markup.

MediaWiki 1.39.17's table (the reference wiki shows `~~~` left as it is in title messages).
"""

from __future__ import annotations

import re

_WIKI_ESCAPES = {
    '"': "&#34;",
    "&": "&#38;",
    "'": "&#39;",
    "<": "&#60;",
    "=": "&#61;",
    ">": "&#62;",
    "[": "&#91;",
    "]": "&#93;",
    "{": "&#123;",
    "|": "&#124;",
    "}": "&#125;",
    ";": "&#59;",
    "\n#": "\n&#35;",
    "\r#": "\r&#35;",
    "\n*": "\n&#42;",
    "\r*": "\r&#42;",
    "\n:": "\n&#58;",
    "\r:": "\r&#58;",
    "\n ": "\n&#32;",
    "\r ": "\r&#32;",
    "\n\n": "\n&#10;",
    "\r\n": "&#13;\n",
    "\n\r": "\n&#13;",
    "\r\r": "\r&#13;",
    "\n\t": "\n&#9;",
    "\r\t": "\r&#9;",
    "\n----": "\n&#45;---",
    "\r----": "\r&#45;---",
    "__": "_&#95;",
    "://": "&#58;//",
}
_WIKI_ESCAPE = re.compile(
    "|".join(re.escape(k) for k in sorted(_WIKI_ESCAPES, key=len, reverse=True))
)
# $wgUrlProtocols without "//": a following colon is escaped too.
_COLON_PROTOCOLS = re.compile(
    r"\b(bitcoin|geo|magnet|mailto|matrix|news|sip|sips|sms|tel|urn|xmpp):", re.IGNORECASE
)


def escape_wikitext(text: str) -> str:
    """wfEscapeWikiText: the characters wikitext would read as markup, as numeric references."""
    escaped = _WIKI_ESCAPE.sub(lambda m: _WIKI_ESCAPES[m.group(0)], "\n" + text)[1:]
    return _COLON_PROTOCOLS.sub(r"\1&#58;", escaped)
