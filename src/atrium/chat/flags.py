"""Personal message flags, stored as one bitfield per (user, message) in Zulip's bit order."""

from __future__ import annotations

import functools

FLAG_NAMES = (
    "read",
    "starred",
    "collapsed",
    "mentioned",
    "stream_wildcard_mentioned",
    "topic_wildcard_mentioned",
    "group_mentioned",
    "force_expand",
    "force_collapse",
    "has_alert_word",
    "historical",
    "is_private",
    "active_mobile_push_notification",
)
BIT = {name: 1 << i for i, name in enumerate(FLAG_NAMES)}

READ = BIT["read"]
STARRED = BIT["starred"]
MENTIONED = BIT["mentioned"]
STREAM_WILDCARD_MENTIONED = BIT["stream_wildcard_mentioned"]
TOPIC_WILDCARD_MENTIONED = BIT["topic_wildcard_mentioned"]
GROUP_MENTIONED = BIT["group_mentioned"]
HISTORICAL = BIT["historical"]
IS_PRIVATE = BIT["is_private"]

# Clients may change these; the rest are set by the server.
EDITABLE = frozenset({"read", "starred", "collapsed"})
# Never shown to clients.
HIDDEN = frozenset({"is_private", "active_mobile_push_notification"})
# Retired flags that are never set any more and are not shown.
RETIRED = frozenset({"force_expand", "force_collapse"})

# Feature level 185 shows one `wildcard_mentioned` flag; the split into stream and topic
# wildcard flags came at feature level 224.
_NOT_AT_FL185 = frozenset({"stream_wildcard_mentioned", "topic_wildcard_mentioned"})
_SHOWN = [(name, BIT[name]) for name in FLAG_NAMES if name not in HIDDEN | RETIRED | _NOT_AT_FL185]
_WILDCARD = STREAM_WILDCARD_MENTIONED | TOPIC_WILDCARD_MENTIONED


def flags_list(bits: int) -> list[str]:
    """The client-visible flags of a bitfield, as feature level 185 names them."""
    return list(_flag_names(bits))


@functools.lru_cache(maxsize=1024)
def _flag_names(bits: int) -> tuple[str, ...]:
    names = [name for name, bit in _SHOWN if bits & bit]
    if bits & _WILDCARD:
        names.append("wildcard_mentioned")
    return tuple(names)
