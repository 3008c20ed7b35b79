"""Checking a wiki feed rule before it is stored, for the API and the CLI alike: the stream is
the organization's, the scope's target is a real namespace or a valid title (kept in the form
the feed compares: a namespace id, a category's dbkey, a page's prefixed dbkey)."""

from __future__ import annotations

from collections.abc import Sequence

from atrium.wiki.site import Site
from atrium.wiki.titles import NS_CATEGORY
from atrium.workspace.bridge.store import EVENTS, SCOPES

MAX_RULES = 100
MAX_TOPIC_CHARS = 60


class RuleError(ValueError):
    """A rule that cannot be stored, with the reason as its message."""


def normalized_target(site: Site, scope: str, target: str) -> str:
    target = target.strip()
    if scope not in SCOPES:
        raise RuleError(f"Invalid scope: {scope} (one of {', '.join(SCOPES)})")
    if scope == "all":
        if target:
            raise RuleError("A rule for all pages takes no target")
        return ""
    if not target:
        raise RuleError(f"A {scope} rule needs a target")
    if scope == "namespace":
        ns = int(target) if target.lstrip("-").isdigit() else site.namespaces.lookup(target)
        if ns is None or ns < 0 or ns not in site.namespaces.ids():
            raise RuleError(f"Invalid namespace: {target}")
        return str(ns)
    default_ns = NS_CATEGORY if scope == "category" else 0
    title = site.parser.parse_or_none(target, default_ns)
    if title is None or title.ns < 0:
        raise RuleError(f"Invalid title: {target}")
    if scope == "category":
        if title.ns != NS_CATEGORY:
            raise RuleError(f"Not a category: {target}")
        return title.dbkey
    return site.parser.prefixed_dbkey(title.ns, title.dbkey)


def checked_events(events: Sequence[str]) -> list[str]:
    unknown = [e for e in events if e not in EVENTS]
    if unknown:
        raise RuleError(f"Invalid event: {unknown[0]} (one of {', '.join(EVENTS)})")
    if not events:
        raise RuleError("A rule needs at least one event")
    return [e for e in EVENTS if e in events]


def checked_topic(topic: str) -> str:
    topic = topic.strip()
    if len(topic) > MAX_TOPIC_CHARS:
        raise RuleError(f"Topic too long (limit: {MAX_TOPIC_CHARS} characters)")
    if any(ord(c) < 32 for c in topic):
        raise RuleError("Invalid character in topic")
    return topic
