"""Rendering for storage: the bridge between the database and the pure markdown renderer.

It gathers what the renderer may look up (users, groups, the streams the sender can see) and
hands back the HTML with the mentions found, which decide the recipients' mention flags. Only
what the content can refer to is loaded: no `@` means no user is read, and a mention reads only
the users whose names or ids the content holds (as Zulip's `possible_mentions` does), not the
realm's whole user list.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import ChatError
from atrium.chat.markdown import (
    LinkableStream,
    MentionableGroup,
    MentionableUser,
    RenderContext,
    RenderResult,
    render_markdown,
    render_stream_description,
)
from atrium.chat.markdown.wikilinks import WikiLinkResolver, WikiTarget, wiki_link_targets
from atrium.chat.models import User
from atrium.chat.queries.emoji import active_emoji_urls
from atrium.chat.queries.linkifiers import realm_linkifiers
from atrium.core.db import Conn, Database, InIdList, Prepared

U = schema.user.c
G = schema.user_group.c
S = schema.stream.c
SUB = schema.subscription.c

# Every `@**…**` / `@_**…**` of the content, wherever it stands: a superset of the mentions the
# renderer will find (it also checks what precedes them), so none can be missed.
_POSSIBLE_USER_MENTION = re.compile(r"@_?\*\*([^*]+)\*\*")
_MENTION_ID = re.compile(r"\|(\d+)$")
KELVIN_SIGN = "\u212a"


def _possible_mentions(content: str) -> tuple[set[str], set[int]]:
    """The lowercased names and the ids that the content's user mentions may refer to."""
    names: set[str] = set()
    ids: set[int] = set()
    for match in _POSSIBLE_USER_MENTION.finditer(content):
        text = match.group(1)
        by_id = _MENTION_ID.search(text)
        if by_id is not None:
            ids.add(int(by_id.group(1)))
        else:
            names.add(text.lower())
    return names, ids


# The users whose ids or lowercased names a content holds, and those whose names hold the
# Kelvin sign: SQL's lower() folds ASCII as Python does, and the Kelvin sign is the one other
# character Python folds to ASCII.
_MENTION_CANDIDATES = Prepared(
    sa.select(U.id, U.full_name, U.email, U.is_active)
    .where(
        U.realm_id == sa.bindparam("realm_id"),
        sa.or_(
            InIdList(U.id, "ids"),
            InIdList(sa.func.lower(U.full_name), "names"),
            U.full_name.contains(KELVIN_SIGN),
        ),
    )
    .order_by(U.id)
)
_REALM_USERS = Prepared(
    sa.select(U.id, U.full_name, U.email, U.is_active)
    .where(U.realm_id == sa.bindparam("realm_id"))
    .order_by(U.id)
)


def _mentionable_users(conn: Conn, realm_id: int, content: str) -> list[MentionableUser]:
    """The realm's users the content may mention (a superset: the renderer matches names as
    Python lowercases them), in id order: the first of two users with the same name wins
    `@**Name**`, as in Zulip. A name beyond ASCII needs Python's folding: then every user."""
    names, ids = _possible_mentions(content)
    if not names and not ids:
        return []
    if all(name.isascii() for name in names):
        params = {
            "realm_id": realm_id,
            "ids": conn.id_list(sorted(ids)),
            "names": conn.text_list(sorted(names)),
        }
        rows = conn.all(_MENTION_CANDIDATES, params)
    else:
        rows = conn.all(_REALM_USERS, {"realm_id": realm_id})
    return [
        MentionableUser(r["id"], r["full_name"], r["email"], bool(r["is_active"])) for r in rows
    ]


_REALM_GROUPS = Prepared(
    sa.select(G.id, G.name).where(
        G.realm_id == sa.bindparam("realm_id"), G.is_system_group.is_(False)
    )
)
_VISIBLE_STREAMS = Prepared(
    sa.select(S.id, S.name).where(
        S.realm_id == sa.bindparam("realm_id"),
        S.deactivated.is_(False),
        sa.or_(
            S.invite_only.is_(False),
            S.id.in_(
                sa.select(SUB.stream_id).where(
                    SUB.user_id == sa.bindparam("user_id"), SUB.active.is_(True)
                )
            ),
        ),
    )
)


# Where a database keeps the wiki-link resolver it was given (`install_wiki_link_resolver`).
WIKI_LINK_RESOLVER_KEY = "wiki_link_resolver"


def install_wiki_link_resolver(db: Database, resolver: WikiLinkResolver) -> None:
    """Give a chat database (its `Database.services`, which every connection reaches) the
    function that turns `[[targets]]` into wiki links. The chat knows no wiki: whoever composes
    the two hands this in; without it, `[[...]]` stays text."""
    db.services[WIKI_LINK_RESOLVER_KEY] = resolver


def _wiki_links(conn: Conn, content: str) -> Mapping[str, WikiTarget]:
    resolver: WikiLinkResolver | None = conn.services.get(WIKI_LINK_RESOLVER_KEY)
    if resolver is None:
        return {}
    targets = wiki_link_targets(content)
    return resolver(targets) if targets else {}


_TRANSLATE_EMOTICONS = Prepared(
    sa.select(U.translate_emoticons).where(U.id == sa.bindparam("user_id"))
)


def render_context(
    conn: Conn,
    realm_id: int,
    sender_id: int | None,
    content: str,
    translate_emoticons: bool | None = None,
) -> RenderContext:
    """What rendering `content` needs to know. `translate_emoticons`: the sender's setting,
    when the caller has read it."""
    users: list[MentionableUser] = []
    groups: list[MentionableGroup] = []
    streams: list[LinkableStream] = []
    params = {"realm_id": realm_id, "user_id": sender_id or 0}
    if "@" in content:
        users = _mentionable_users(conn, realm_id, content)
        groups = [MentionableGroup(r["id"], r["name"]) for r in conn.all(_REALM_GROUPS, params)]
    if "#**" in content:
        streams = [LinkableStream(r["id"], r["name"]) for r in conn.all(_VISIBLE_STREAMS, params)]
    # Loaded on every render, so that a linkifier change applies to the very next message.
    linkifiers = realm_linkifiers(conn, realm_id)
    if sender_id is None:
        translate_emoticons = False
    elif translate_emoticons is None:
        translate_emoticons = bool(conn.scalar(_TRANSLATE_EMOTICONS, {"user_id": sender_id}))
    realm_emoji = active_emoji_urls(conn, realm_id) if ":" in content else {}
    wiki_links = _wiki_links(conn, content) if "[[" in content else {}
    return RenderContext(
        users=users,
        groups=groups,
        streams=streams,
        linkifiers=linkifiers,
        realm_emoji=realm_emoji,
        translate_emoticons=translate_emoticons,
        sender_id=sender_id,
        # Math renders through KaTeX, as on Zulip (the renderer's default is off).
        render_math=True,
        wiki_links=wiki_links,
    )


def refuse_unrendered(result: RenderResult) -> RenderResult:
    """Zulip refuses a message whose rendering ran out of time rather than store its text."""
    if result.timed_out:
        raise ChatError("Unable to render message")
    return result


@dataclass(frozen=True)
class Prerendered:
    """A message's rendering made before its write, in a rendering thread: a write runs on the
    event loop (SQLite's writer), where a slow rendering would hold every other request."""

    sender_id: int
    content: str
    context: RenderContext
    result: RenderResult

    def matches(self, sender_id: int, content: str) -> bool:
        """Whether this is the rendering of what the write stores (the write may have
        normalized the text differently, or refused it before rendering)."""
        return self.sender_id == sender_id and self.content == content


# Below this length a message renders in well under a millisecond, less than the trip to a
# rendering thread and back costs, so the write renders it itself.
PRERENDER_MIN_LENGTH = 256


async def prerender_for_write(db: Database, sender: User, content: str) -> Prerendered | None:
    """The rendering of a message about to be written, made in a rendering thread; None for a
    short message (the write renders it)."""
    if len(content) < PRERENDER_MIN_LENGTH:
        return None
    return await db.read_rendering(prerender, sender, content)


def prerender(conn: Conn, sender: User, content: str) -> Prerendered:
    """Render `content` as `sender`'s message, for `Database.read_rendering`; a rendering that
    ran out of time is refused by the write, where the unrendered message would have been."""
    context = render_context(conn, sender.realm_id, sender.id, content)
    return Prerendered(sender.id, content, context, render_markdown(content, context))


def render_message(
    conn: Conn, sender: User, content: str, prerendered: Prerendered | None = None
) -> RenderResult:
    if prerendered is not None and prerendered.matches(sender.id, content):
        return refuse_unrendered(prerendered.result)
    return refuse_unrendered(
        render_markdown(content, render_context(conn, sender.realm_id, sender.id, content))
    )


def render_description(conn: Conn, realm_id: int, description: str) -> str:
    if not description:
        return ""
    return render_stream_description(description, render_context(conn, realm_id, None, description))


def group_member_ids(conn: Conn, group_ids: set[int]) -> set[int]:
    """Direct members of the mentioned groups (and of their subgroups)."""
    if not group_ids:
        return set()
    pending, seen = set(group_ids), set()
    while pending:
        seen |= pending
        subgroups = conn.scalars(
            sa.select(schema.user_group_subgroup.c.subgroup_id).where(
                schema.user_group_subgroup.c.supergroup_id.in_(list(pending))
            )
        )
        pending = set(subgroups) - seen
    rows: list[Any] = conn.scalars(
        sa.select(schema.user_group_member.c.user_id).where(
            schema.user_group_member.c.user_group_id.in_(list(seen))
        )
    )
    return set(rows)
