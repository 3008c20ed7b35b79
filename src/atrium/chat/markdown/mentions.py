"""User, group and wildcard mentions; stream and topic links.

All lookups go through the `RenderContext` (case-insensitive names for users
and groups, exact names for streams); what was mentioned is recorded on the
render's `RenderResult`. Silent mentions (`@_**…**`) render but notify nobody,
and a mention of a deactivated user is always silent.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote
from xml.etree.ElementTree import Element

from markdown.inlinepatterns import InlineProcessor
from markdown.util import AtomicString

# Mentions and links start at the beginning, after whitespace or after one of
# these openers, so "foo@**bar**" or an e-mail address is not a mention.
BEFORE_MENTION = r"(?<![^\s'\"\(\{\[\/<])"
USER_MENTION_RE = re.compile(BEFORE_MENTION + r"@(?P<silent>_?)(\*\*(?P<match>[^\*]+)\*\*)")
GROUP_MENTION_RE = re.compile(BEFORE_MENTION + r"@(?P<silent>_?)(\*(?P<match>[^\*]+)\*)")
STREAM_LINK_RE = re.compile(BEFORE_MENTION + r"\#\*\*(?P<stream_name>[^\*]+)\*\*")
STREAM_TOPIC_LINK_RE = re.compile(
    BEFORE_MENTION + r"\#\*\*(?P<stream_name>[^\*>]+)>(?P<topic_name>[^\*]+)\*\*"
)
_ID_SYNTAX_RE = re.compile(r"(?P<full_name>.+)?\|(?P<user_id>\d+)$")

STREAM_WILDCARDS = frozenset({"all", "everyone", "stream", "channel"})
TOPIC_WILDCARD = "topic"


def hash_util_encode(text: str) -> str:
    """Zulip's URL-fragment encoding: percent-encoding with `.` in place of `%`."""
    return quote(text, safe="").replace(".", "%2E").replace("%", ".")


def encode_stream(stream_id: int, stream_name: str) -> str:
    return f"{stream_id}-{hash_util_encode(stream_name.replace(' ', '-'))}"


def stream_narrow_url(stream_id: int, stream_name: str, topic: str | None = None) -> str:
    url = f"/#narrow/stream/{encode_stream(stream_id, stream_name)}"
    if topic is not None:
        url += f"/topic/{hash_util_encode(topic)}"
    return url


_NO_MATCH: tuple[None, None, None] = (None, None, None)
Handled = tuple[Element | None, int | None, int | None]


class UserMentionProcessor(InlineProcessor):  # type: ignore[misc]
    def __init__(self, md: Any) -> None:
        super().__init__(USER_MENTION_RE.pattern, md)
        self.compiled_re = USER_MENTION_RE

    def handleMatch(self, m: re.Match[str], data: str) -> Handled:
        ctx = self.md.zulip_ctx
        result = self.md.zulip_result
        name = m.group("match")
        silent = m.group("silent") == "_"
        el = Element("span")
        if name in STREAM_WILDCARDS:
            if not silent:
                result.stream_wildcard_mentioned = True
            el.set("class", "user-mention")
            el.set("data-user-id", "*")
        elif name == TOPIC_WILDCARD:
            if not silent:
                result.topic_wildcard_mentioned = True
            el.set("class", "topic-mention")
        else:
            id_match = _ID_SYNTAX_RE.match(name)
            if id_match:
                user = ctx.users_by_id.get(int(id_match.group("user_id")))
                full_name = id_match.group("full_name")
                # `@**Name|id**` must name that very user.
                if user is not None and full_name and user.full_name != full_name:
                    return _NO_MATCH
            else:
                user = ctx.users_by_name.get(name.lower())
            if user is None:
                return _NO_MATCH
            if not user.is_active:
                silent = True
            if not silent:
                result.mentioned_user_ids.add(user.id)
            name = user.full_name
            el.set("class", "user-mention")
            el.set("data-user-id", str(user.id))
        if silent:
            el.set("class", el.get("class", "") + " silent")
            el.text = AtomicString(name)
        else:
            el.text = AtomicString("@" + name)
        return el, m.start(), m.end()


class GroupMentionProcessor(InlineProcessor):  # type: ignore[misc]
    def __init__(self, md: Any) -> None:
        super().__init__(GROUP_MENTION_RE.pattern, md)
        self.compiled_re = GROUP_MENTION_RE

    def handleMatch(self, m: re.Match[str], data: str) -> Handled:
        group = self.md.zulip_ctx.groups_by_name.get(m.group("match").lower())
        if group is None:
            return _NO_MATCH
        silent = m.group("silent") == "_"
        el = Element("span")
        el.set("class", "user-group-mention silent" if silent else "user-group-mention")
        el.set("data-user-group-id", str(group.id))
        el.text = AtomicString(group.name if silent else "@" + group.name)
        if not silent:
            self.md.zulip_result.mentioned_group_ids.add(group.id)
        return el, m.start(), m.end()


class StreamLinkProcessor(InlineProcessor):  # type: ignore[misc]
    def __init__(self, md: Any) -> None:
        super().__init__(STREAM_LINK_RE.pattern, md)
        self.compiled_re = STREAM_LINK_RE

    def handleMatch(self, m: re.Match[str], data: str) -> Handled:
        name = m.group("stream_name")
        stream_id = self.md.zulip_ctx.stream_ids_by_name.get(name)
        if stream_id is None:
            return _NO_MATCH
        el = Element("a")
        el.set("class", "stream")
        el.set("data-stream-id", str(stream_id))
        el.set("href", stream_narrow_url(stream_id, name))
        el.text = AtomicString("#" + name)
        return el, m.start(), m.end()


class StreamTopicLinkProcessor(InlineProcessor):  # type: ignore[misc]
    def __init__(self, md: Any) -> None:
        super().__init__(STREAM_TOPIC_LINK_RE.pattern, md)
        self.compiled_re = STREAM_TOPIC_LINK_RE

    def handleMatch(self, m: re.Match[str], data: str) -> Handled:
        name, topic = m.group("stream_name"), m.group("topic_name")
        stream_id = self.md.zulip_ctx.stream_ids_by_name.get(name)
        if stream_id is None:
            return _NO_MATCH
        el = Element("a")
        el.set("class", "stream-topic")
        el.set("data-stream-id", str(stream_id))
        el.set("href", stream_narrow_url(stream_id, name, topic))
        el.text = AtomicString(f"#{name} > {topic}")
        return el, m.start(), m.end()
