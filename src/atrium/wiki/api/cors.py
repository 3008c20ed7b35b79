"""Who may read api.php answers across origins with the caller's cookies, and what a JSONP
callback may be called.

An origin is allowed when it is the site's own or one listed in ATRIUM_WIKI_CORS_ORIGINS
($wgCrossSiteAJAXdomains), compared whole: scheme, host and port. Comparing by prefix would let
`http://wiki.example.org.evil.example` read a signed-in visitor's tokens.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from atrium.wiki.site import Site

_DEFAULT_PORTS = {"http": 80, "https": 443}
# ApiFormatJson: characters outside this set are dropped from the callback's name, so that it
# can only name a function, never carry code.
_CALLBACK_JUNK = re.compile(r"""[^\]\[.'"_A-Za-z0-9]""")


def origin_key(origin: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an origin or URL, or None when it is not an http(s) origin."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if scheme not in _DEFAULT_PORTS or not host:
        return None
    return scheme, host, port if port is not None else _DEFAULT_PORTS[scheme]


def allowed(origin: str, site: Site) -> bool:
    """May `origin` read credentialed answers of this wiki?"""
    key = origin_key(origin)
    if key is None:
        return False
    return any(key == origin_key(good) for good in (site.server, *site.cors_origins))


def jsonp_callback(callback: str | None) -> str | None:
    """The callback's name as MediaWiki's ApiFormatJson writes it."""
    return None if callback is None else _CALLBACK_JUNK.sub("", callback)
