"""External-link indexes and URL filters, as MediaWiki 1.39's LinkFilter.

An external link is stored with its `el_index`: the URL with the host's labels reversed and lower
cased (`http://www.Example.org/a` -> `http://org.example.www./a`, IPv4 hosts as `V4.1.2.3.4.`,
`mailto:me@example.org` -> `mailto:org.example.@me`), so links sort and match by domain. A
protocol-relative link (`//example.org/`) gets two indexes, under `http:` and `https:`.
`list=exturlusage` turns its `query` (`*.example.org/path`) into the constant prefix of those
indexes (`like_prefix`).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import quote, unquote

# $wgUrlProtocols (MediaWiki 1.39's default), "//" aside.
URL_PROTOCOLS = (
    "bitcoin:", "ftp://", "ftps://", "geo:", "git://", "gopher://", "http://", "https://",
    "irc://", "ircs://", "magnet:", "mailto:", "matrix:", "mms://", "news:", "nntp://",
    "redis://", "sftp://", "sip:", "sips:", "sms:", "ssh://", "svn://", "tel:", "telnet://",
    "urn:", "worldwind://", "xmpp:",
)  # fmt: skip
# The values of the API's `protocol` parameters (extlinks, exturlusage): each protocol without
# its delimiter, and "" for http and https.
PROTOCOL_NAMES = ("", *(p.rstrip(":/") for p in URL_PROTOCOLS))

_OK_HOST = re.compile(r"[^a-zA-Z0-9\-._~!$&'()*+,;=\x80-\U0010ffff]")
_BYTE = r"(?:0*25[0-5]|0*2[0-4][0-9]|0*1[0-9][0-9]|0*[0-9]?[0-9])"
_IPV4 = re.compile(rf"^(?:{_BYTE}\.){{3}}{_BYTE}$|^(?:{_BYTE}\.){{1,3}}\*$")
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")


@dataclass
class UrlBits:
    """wfParseUrl's parts of a URL (None: absent, as an unset PHP array key)."""

    scheme: str
    delimiter: str
    host: str
    port: str | None = None
    path: str | None = None
    query: str | None = None
    fragment: str | None = None


def parse_url(url: str) -> UrlBits | None:
    """wfParseUrl: None unless the URL starts with one of the URL protocols (or `//`)."""
    relative = url.startswith("//")
    if relative:
        url = "http:" + url
    match = _SCHEME.match(url)
    if match is None:
        return None
    scheme = match.group(1).lower()
    rest = url[match.end() :]
    if f"{scheme}://" in URL_PROTOCOLS and rest.startswith("//"):
        bits = _authority_url(scheme, rest[2:])
    elif f"{scheme}:" in URL_PROTOCOLS:
        # mailto:, news: … have no authority: what follows the colon is the "host".
        text, query, fragment = _split_tail(rest)
        bits = UrlBits(scheme, ":", text, path="", query=query, fragment=fragment)
    else:
        return None
    if relative:
        bits.scheme, bits.delimiter = "", "//"
    return bits


def _split_tail(text: str) -> tuple[str, str | None, str | None]:
    fragment = query = None
    if "#" in text:
        text, fragment = text.split("#", 1)
    if "?" in text:
        text, query = text.split("?", 1)
    return text, query, fragment


def _authority_url(scheme: str, rest: str) -> UrlBits:
    end = len(rest)
    for mark in "/?#":
        pos = rest.find(mark)
        if pos != -1:
            end = min(end, pos)
    authority, tail = rest[:end], rest[end:]
    path, query, fragment = _split_tail(tail)
    host = authority.rpartition("@")[2]
    port = None
    if not host.endswith("]") and ":" in host:
        host, _, port_text = host.rpartition(":")
        port = port_text or None
    return UrlBits(scheme, "://", host, port, path or None, query, fragment)


def indexify_host(host: str) -> str:
    """LinkFilter::indexifyHost: lower case, odd bytes percent-encoded, labels reversed."""
    host = unquote(host)
    host = _OK_HOST.sub(lambda m: quote(m.group(0), safe=""), host.lower())
    bracketed = re.match(r"^\[([0-9a-f:*]+)\]$", unquote(host))
    if bracketed:
        indexed = _ipv6(bracketed.group(1))
        if indexed is not None:
            return indexed
    if host.endswith("."):
        host = host[:-1]
    if _IPV4.match(host):
        parts = [p if p == "*" else str(int(p)) for p in host.split(".")]
        return "V4." + ".".join(parts) + "."
    return ".".join(reversed(host.split("."))) + "."


def _ipv6(ip: str) -> str | None:
    def groups(text: str) -> list[str]:
        return [format(int(g, 16), "X") for g in ipaddress.IPv6Address(text).exploded.split(":")]

    try:
        return "V6." + ".".join(groups(ip)) + "."
    except ValueError:
        pass
    if ip.endswith(":*"):
        cut = ip[:-2]
        try:
            count = ip.count(":")
            return "V6." + ".".join(groups(cut + "::")[:count]) + ".*."
        except ValueError:
            return None
    return None


def make_indexes(url: str) -> list[str]:
    """LinkFilter::makeIndexes: the index of a URL (two for a protocol-relative one)."""
    bits = parse_url(url)
    if bits is None:
        return []
    if bits.scheme == "mailto":
        local, at, domain = bits.host.partition("@")
        host = (indexify_host(domain) if at else "") + "@" + local
    else:
        host = indexify_host(bits.host)
    index = f"{bits.scheme}{bits.delimiter}{host}"
    if bits.port is not None:
        index += ":" + bits.port
    index += bits.path if bits.path is not None else "/"
    if bits.query is not None:
        index += "?" + bits.query
    if bits.fragment is not None:
        index += "#" + bits.fragment
    if bits.scheme == "":
        return ["http:" + index, "https:" + index]
    return [index]


def like_prefix(filter_entry: str) -> str | None:
    """The constant start of the indexes a filter (`*.example.org/path`, already prefixed with
    its protocol) matches: LinkFilter::makeLikeArray cut at its first wildcard, as
    `getQueryConditions(oneWildcard)` uses it. None for a filter MediaWiki refuses (an asterisk
    anywhere but at the start of the host)."""
    bits = parse_url(filter_entry)
    if bits is None:
        return None
    subdomains = False
    if bits.scheme == "mailto" and bits.host.find("@") > 0:
        local, _, domain = bits.host.partition("@")
        host = indexify_host(domain)
        if local == "*":
            subdomains, host = True, host + "@"
        else:
            host = f"{host}@{local}"
    else:
        host = indexify_host(bits.host)
        if host.endswith(".*."):
            subdomains, host = True, host[:-2]
    parts = [f"{bits.scheme}{bits.delimiter}{host}"]
    if bits.port is not None:
        parts.append(":" + bits.port)
    if bits.path is not None:
        parts.append(bits.path)
    elif not subdomains:
        parts.append("/")
    if bits.query is not None:
        parts.append("?" + bits.query)
    if bits.fragment is not None:
        parts.append("#" + bits.fragment)
    if any("*" in part for part in parts):
        return None
    # With subdomains the wildcard follows the host: the constant prefix ends there.
    return parts[0] if subdomains else "".join(parts)
