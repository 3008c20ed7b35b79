"""The kind of a link the Special page crawl follows, so that its status can be compared with the
one MediaWiki 1.39 gives for a link of that kind (`data/mw139_crawl_statuses.json`, recorded by
tools/capture_crawl_statuses.py, which names its links the same way).

A kind names what the link asks, not what the page answered: a Special page (and the state of
its target: an account, an IP address, a page or nothing), or an action on a page in a state
(existing, missing, edit-protected, creation-protected), and who asks.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import parse_qs, unquote, urlsplit

from tests.wiki.conftest import WikiHarness

from atrium.wiki.messages.store import MESSAGES
from atrium.wiki.reads.users import account_by_name
from atrium.wiki.titles import NS_CATEGORY, NS_FILE, NS_MEDIAWIKI, NS_SPECIAL, NS_USER, Title
from atrium.wiki.web import specialpages

# The namespaces a missing page's view is told apart in (MediaWiki shows some pages though no
# page exists: a registered person's or an IP address's user page, a message's default text).
_GROUPS = {NS_FILE: "file", NS_CATEGORY: "category"}


def _target(url: str) -> tuple[str | None, dict[str, list[str]]]:
    parts = urlsplit(url)
    query = parse_qs(parts.query, keep_blank_values=True)
    if parts.path.startswith("/wiki/"):
        return unquote(parts.path[len("/wiki/") :]), query
    titles = query.get("title")
    return (titles[0] if titles else None), query


def action_of(query: dict[str, list[str]]) -> str:
    """MediaWiki's action of a page link: `diff` and `oldid` read as their own."""
    action = (query.get("action") or ["view"])[0]
    if action == "view" and "diff" in query:
        return "diff"
    if action == "view" and "oldid" in query:
        return "oldid"
    return action


class Kinds:
    """Kinds of links on one seeded wiki: the state of each page is asked of it once."""

    def __init__(self, wiki: WikiHarness) -> None:
        self.wiki = wiki
        self.states: dict[tuple[int, str], str] = {}
        self.users: dict[str, bool] = {}

    async def learn(self, urls: Iterable[str]) -> None:
        """Ask the wiki the state of every page and account the links name."""
        titles: set[Title] = set()
        names: set[str] = set()
        for url in urls:
            text, _ = _target(url)
            title = self.wiki.site.parser.parse_or_none(text) if text else None
            if title is None:
                continue
            if title.ns == NS_SPECIAL:
                found = specialpages.lookup(title.dbkey)
                sub = found[1] if found else None
                if sub:
                    names.add(sub.replace("_", " "))
                    sub_title = self.wiki.site.parser.parse_or_none(sub)
                    if sub_title is not None and sub_title.ns >= 0:
                        titles.add(sub_title)
            else:
                titles.add(title)
                if title.ns in (NS_USER, NS_USER + 1):
                    names.add(title.dbkey.split("/")[0].replace("_", " "))
        for name in names:
            self.users[name] = await self.wiki.db.read(account_by_name, name) is not None
        ordered = sorted(titles, key=lambda t: (t.ns, t.dbkey))
        async with self.wiki.client() as client:
            for start in range(0, len(ordered), 50):
                chunk = ordered[start : start + 50]
                names_text = "|".join(
                    self.wiki.site.parser.prefixed_text(t.ns, t.dbkey) for t in chunk
                )
                answer = await self.wiki.api(
                    client, action="query", prop="info", inprop="protection",
                    titles=names_text, formatversion="2",
                )  # fmt: skip
                for page in answer["query"]["pages"]:
                    title = self.wiki.site.parser.parse(page["title"])
                    levels = {p["type"]: p["level"] for p in page.get("protection", [])}
                    if page.get("missing") or page.get("invalid"):
                        state = "create-protected" if levels.get("create") else "missing"
                    else:
                        state = "protected" if levels.get("edit") == "sysop" else "existing"
                    self.states[(title.ns, title.dbkey)] = state

    def _group(self, title: Title) -> str:
        """The group of a missing page, for its view."""
        if title.ns in (NS_USER, NS_USER + 1):
            root, _, rest = title.dbkey.partition("/")
            if rest:
                return "user subpage"
            if _is_ip(root):
                return "user ip"
            return "user registered" if self.users.get(root.replace("_", " ")) else "user unknown"
        if title.ns == NS_MEDIAWIKI:
            key = title.dbkey[:1].lower() + title.dbkey[1:]
            return "message default" if key.lower() in _MESSAGE_KEYS else "message"
        return _GROUPS.get(title.ns, "page")

    def _sub_state(self, sub: str) -> str:
        if _is_ip(sub):
            return "ip"
        if self.users.get(sub.replace("_", " ")):
            return "user"
        title = self.wiki.site.parser.parse_or_none(sub)
        if title is not None and self.states.get((title.ns, title.dbkey)) not in (
            None,
            "missing",
            "create-protected",
        ):
            return "page"
        return "missing"

    def of(self, url: str, who: str) -> str | None:
        """The link's kind, or None for a link to no page (a bad title)."""
        text, query = _target(url)
        title = self.wiki.site.parser.parse_or_none(text) if text else None
        if title is None:
            return None
        if title.ns == NS_SPECIAL:
            found = specialpages.lookup(title.dbkey)
            if found is None:
                return f"Special:{title.dbkey.lower()} (none) as {who}"
            page, sub = found
            lookup, _, value = (sub or "").partition("/")
            if page.name == "Redirect" and value and lookup.lower() in REDIRECT_LOOKUPS:
                # Special:Redirect/<type>/<value>: a lookup, not a page name.
                return f"Special:redirect lookup {lookup.lower()} as {who}"
            where = f"/{self._sub_state(sub)}" if sub else ""
            return f"Special:{page.name.lower()}{where} as {who}"
        state = self.states.get((title.ns, title.dbkey), "missing")
        action = action_of(query)
        if action == "view" and state in ("missing", "create-protected"):
            state = f"missing {self._group(title)}"
        return f"{action} of {state} as {who}"


_MESSAGE_KEYS = {key.lower() for key in MESSAGES}
REDIRECT_LOOKUPS = {"file", "page", "revision", "user", "logid"}


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
