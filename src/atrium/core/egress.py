"""The policy for outgoing requests to destinations users choose (an outgoing webhook's URL).

Such a URL may name the server's own loopback, the private network it sits in or a cloud's
metadata address; the answer may be read back by the user. So by default a destination is
refused unless every address its host resolves to is a public one: the host is resolved once,
checked, and the connection made to the checked address (the Host header and the TLS server name
stay the URL's host), so a second, different DNS answer cannot slip in. Redirects are not
followed, and only http(s) is spoken.

Operators may allow some private hosts or networks (`ATRIUM_EGRESS_ALLOW`), or send every such
request through an egress proxy (`ATRIUM_EGRESS_PROXY`, as Zulip uses Smokescreen), which then
enforces its own policy. Endpoints the operator configures (databases, Redis, SMTP, the proxy
itself) are trusted and never pass through here.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from typing import Any

import httpx

from atrium.settings import Settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


class EgressRefused(Exception):
    """The destination is not one the policy lets the server reach."""


def is_public(address: IPAddress) -> bool:
    """A globally routable unicast address: not loopback, private, link-local, unique-local,
    shared (CGNAT), multicast, unspecified or reserved, nor an IPv4 one of those mapped into
    IPv6."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return is_public(address.ipv4_mapped)
    return address.is_global and not address.is_multicast


@dataclass(frozen=True)
class EgressPolicy:
    # Hosts (lower case) and networks reachable even though they are not public.
    allowed_hosts: frozenset[str] = frozenset()
    allowed_networks: tuple[IPNetwork, ...] = ()
    # When set, every request goes through this proxy, and the proxy decides.
    proxy: str | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> EgressPolicy:
        hosts: set[str] = set()
        networks: list[IPNetwork] = []
        for entry in settings.egress_allow:
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                hosts.add(entry.lower().rstrip("."))
        return cls(frozenset(hosts), tuple(networks), settings.egress_proxy)

    def allows(self, host: str, address: IPAddress) -> bool:
        if is_public(address) or host.lower().rstrip(".") in self.allowed_hosts:
            return True
        return any(address in network for network in self.allowed_networks)

    async def resolve(self, url: httpx.URL, timeout: float) -> IPAddress:
        """The address to connect to for `url`, after checking every address its host has."""
        if url.scheme not in ("http", "https") or not url.host:
            raise EgressRefused(f"not an http(s) URL: {url.scheme}")
        port = url.port or (443 if url.scheme == "https" else 80)
        try:
            infos = await asyncio.wait_for(
                asyncio.get_running_loop().getaddrinfo(url.host, port, type=socket.SOCK_STREAM),
                timeout,
            )
        except (OSError, TimeoutError) as exc:
            raise EgressRefused(f"cannot resolve {url.host}") from exc
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]
        if not addresses:
            raise EgressRefused(f"cannot resolve {url.host}")
        refused = [a for a in addresses if not self.allows(url.host, a)]
        if refused:
            raise EgressRefused(f"{url.host} resolves to a non-public address ({refused[0]})")
        return addresses[0]

    async def post(
        self, url: str, *, timeout: float, headers: dict[str, str], **body: Any
    ) -> httpx.Response:
        """POST `body` (httpx's `json=` or `data=`) to `url` under the policy; raises
        EgressRefused for a destination it refuses, httpx.HTTPError for a failed request."""
        target = httpx.URL(url)
        if target.scheme not in ("http", "https"):
            raise EgressRefused(f"not an http(s) URL: {target.scheme}")
        if self.proxy is not None:
            async with httpx.AsyncClient(
                proxy=self.proxy, timeout=timeout, follow_redirects=False, trust_env=False
            ) as client:
                return await client.post(target, headers=headers, **body)
        address = await self.resolve(target, timeout)
        pinned = target.copy_with(host=str(address))
        extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
        host_header = target.netloc.decode("ascii").rsplit("@", 1)[-1]
        async with httpx.AsyncClient(
            timeout=timeout, follow_redirects=False, trust_env=False
        ) as client:
            request = client.build_request(
                "POST",
                pinned,
                headers={**headers, "Host": host_header},
                extensions=extensions,
                **body,
            )
            return await client.send(request)
