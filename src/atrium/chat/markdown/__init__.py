"""Zulip-flavoured Markdown: the HTML Zulip's server would store for a message.

A pure renderer: it reads nothing from the database. The caller builds a
`RenderContext` with what the sender may refer to and gets a `RenderResult`:

    ctx = RenderContext(
        realm_url="https://chat.example.com",
        users=[MentionableUser(id=7, full_name="Ada Lovelace", email="ada@example.com")],
        groups=[MentionableGroup(id=3, name="support")],        # no system groups
        streams=[LinkableStream(id=1, name="Denmark")],         # streams the sender can see
        linkifiers=[Linkifier(id=1, pattern=r"#(?P<id>[0-9]+)",
                              url_template="https://tracker.example.com/{id}")],
        realm_emoji={"parrot": "/user_avatars/2/emoji/parrot.png"},
        translate_emoticons=sender.translate_emoticons,
        sender_id=sender.id,
        render_math=True,                                       # math, as Zulip's servers
        camo_uri="", camo_key="",                               # external-content proxy, if any
    )
    result = render_markdown(content, ctx)
    result.html                       # -> Message.rendered_content
    result.mentioned_user_ids         # -> "mentioned" flag for these users
    result.mentioned_group_ids        # -> "mentioned" flag for the groups' members
    result.stream_wildcard_mentioned  # -> "wildcard_mentioned" for subscribers
    result.topic_wildcard_mentioned   # -> "wildcard_mentioned" for topic participants
    result.is_me_message              # -> a `/me` status message
    result.failed                     # -> True when `html` is the escaped-text fallback

    render_topic_links(topic, ctx)            # -> message "topic_links": [{"text", "url"}]
    render_stream_description(text, ctx)      # -> stream "rendered_description"

`render_markdown` never raises: input it cannot handle is logged (its shape, not
its words) and rendered as escaped text in a paragraph. Engines are built once
per set of linkifiers (and per thread) and reused, so keep `ctx` per realm
state; a `RenderContext` builds its lookup tables lazily, once.

Modules: `engine` (the Python-Markdown set-up), `blocks` (lists, headings,
quotes), `code` (fenced blocks, highlighting, spoilers), `inline` (emphasis,
links, bare URLs, times, inline math), `mentions`, `emoji`, `linkifiers`,
`previews` (image and video previews), `urls` (URL safety), `sanitize` (the
final check of every output), `tex` (TeX to MathML with latex2mathml).
Timings: `python -m bench --only markdown` (`bench/markdown.py`).
"""

from __future__ import annotations

import dataclasses

from atrium.chat.markdown.context import (
    LinkableStream,
    Linkifier,
    MentionableGroup,
    MentionableUser,
    RenderContext,
    RenderResult,
)
from atrium.chat.markdown.engine import safe_convert
from atrium.chat.markdown.linkifiers import topic_links

__all__ = [
    "LinkableStream",
    "Linkifier",
    "MentionableGroup",
    "MentionableUser",
    "RenderContext",
    "RenderResult",
    "render_markdown",
    "render_stream_description",
    "render_topic_links",
]


def render_markdown(content: str, ctx: RenderContext) -> RenderResult:
    """Render a message's Markdown to Zulip's HTML; never raises."""
    return safe_convert(content, ctx)


def render_topic_links(topic: str, ctx: RenderContext) -> list[dict[str, str]]:
    """A topic's links, as Zulip's `topic_links`: linkifier matches, then bare URLs."""
    return topic_links(topic, ctx.linkifiers)


def render_stream_description(text: str, ctx: RenderContext) -> str:
    """A stream description's HTML (`rendered_description`): no image previews."""
    if ctx.inline_image_preview:
        ctx = dataclasses.replace(ctx, inline_image_preview=False)
    return safe_convert(text, ctx).html
