"""Reading messages: GET /messages (anchors, windows, found_*), GET /messages/{id}, message objects."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import orjson
import sqlalchemy as sa

from atrium.chat import flags, schema, search
from atrium.chat.errors import ChatError
from atrium.chat.markdown import Linkifier, RenderContext, render_topic_links
from atrium.chat.models import User
from atrium.chat.narrow import CompiledNarrow, Term, compile_narrow
from atrium.chat.queries import message_cache, message_display
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.conversation_window import (
    LIGHT_COLUMNS,
    MAX_SQL_ID,
    ConversationWindow,
    Side,
    conversation_operands,
)
from atrium.chat.queries.conversation_window import (
    LIGHT_ROW as L,
)
from atrium.chat.queries.flag_rows import with_flag
from atrium.chat.queries.linkifiers import realm_linkifiers
from atrium.chat.queries.message_display import sender_fields
from atrium.chat.queries.reactions import reactions_of_rows
from atrium.chat.queries.user_topics import muted_topics_condition
from atrium.core.db import Conn

M = schema.message.c
UM = schema.user_message.c
U = schema.user.c

LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000
MAX_MESSAGES_PER_FETCH = 5000


def parse_anchor(raw: str | None, use_first_unread_anchor: bool) -> int | str:
    # The legacy flag wins over any anchor given with it, as in Zulip (zulip-terminal sends
    # anchor=0 with it and expects the first unread message).
    if use_first_unread_anchor:
        return "first_unread"
    if raw is None:
        raise ChatError("Missing 'anchor' argument.")
    if raw in {"newest", "oldest", "first_unread"}:
        return raw
    try:
        value = int(raw)
    except ValueError:
        raise ChatError("Invalid anchor") from None
    return max(0, min(value, LARGER_THAN_MAX_MESSAGE_ID))


@dataclass
class Window:
    anchor: int
    found_anchor: bool
    found_oldest: bool
    found_newest: bool
    history_limited: bool
    # Message objects: dicts, or one pre-serialised JSON array (see messages_fragment).
    messages: list[Any] | orjson.Fragment


def _base_query(
    narrow: CompiledNarrow, user: User, ids_only: bool = False, light: bool = False
) -> sa.Select[Any]:
    columns: list[Any] = (
        [M.id] if ids_only else list(LIGHT_COLUMNS) if light else [*schema.message.c]
    )
    columns.append(UM.flags.label("user_flags"))
    if narrow.history:
        join = schema.message.outerjoin(
            schema.user_message, sa.and_(UM.message_id == M.id, UM.user_id == user.id)
        )
        return sa.select(*columns).select_from(join).where(narrow.condition)
    join = schema.user_message.join(schema.message, M.id == UM.message_id)
    return sa.select(*columns).select_from(join).where(UM.user_id == user.id, narrow.condition)


def _id_column(narrow: CompiledNarrow) -> Any:
    # Ordering on the driving table's column lets the index do the work: the message's id when
    # the narrow names a stream (its recipient index drives), else the reader's delivery rows.
    return M.id if narrow.history or narrow.by_recipient else UM.message_id


def first_unread_id(conn: Conn, user: User, narrow: CompiledNarrow) -> int:
    muted_streams = sa.select(schema.subscription.c.stream_id).where(
        schema.subscription.c.user_id == user.id, schema.subscription.c.is_muted.is_(True)
    )
    # Through the index of the reader's unread rows: a scan of every row the reader has, in
    # id order until one matches, took 18 ms on a topic of the 1M-message data set.
    query = with_flag(
        sa.select(UM.message_id)
        .select_from(schema.user_message.join(schema.message, M.id == UM.message_id))
        .where(
            UM.user_id == user.id,
            narrow.condition,
            sa.or_(M.stream_id.is_(None), M.stream_id.not_in(muted_streams)),
        )
        .order_by(UM.message_id)
        .limit(1),
        flags.READ,
        is_set=False,
    )
    if narrow.index_search:
        query = query.where(_search_ids_condition(narrow))
    unmuted_topics = muted_topics_condition(conn, user.id)
    if unmuted_topics is not None:  # the first unread skips muted topics, as in Zulip
        query = query.where(unmuted_topics)
    found = conn.scalar(query)
    return LARGER_THAN_MAX_MESSAGE_ID if found is None else int(found)


@dataclass
class WindowRows:
    """The rows of a window (oldest first) and what the window learnt about its ends."""

    anchor: int
    rows: list[Any]
    found_anchor: bool
    found_oldest: bool
    found_newest: bool
    # Names of streams the window read on its way (a conversation's stream), by id.
    stream_names: dict[int, str] = field(default_factory=dict)


def window_rows(
    conn: Conn,
    user: User,
    terms: Sequence[Term],
    anchor: int | str,
    num_before: int,
    num_after: int,
    include_anchor: bool,
    *,
    ids_only: bool = False,
    light: bool = False,
) -> WindowRows:
    """The messages of a narrow around an anchor, as GET /messages and flags/narrow see them."""
    near = next((t for t in terms if t.operator == "near" and not t.negated), None)
    if near is not None:
        try:
            anchor = int(near.operand)
        except (TypeError, ValueError):
            raise ChatError("Invalid anchor") from None
    conversation = conversation_operands(terms) if light else None
    read_side: Callable[[Side, int, int], list[Any]]
    stream_names: dict[int, str] = {}
    if conversation is not None and anchor != "first_unread":
        conversation_window = ConversationWindow(conn, user, *conversation)
        read_side = conversation_window.side
        stream_names = conversation_window.stream_names
    else:
        narrow = compile_narrow(conn, user, terms)
        if anchor == "first_unread":
            anchor = first_unread_id(conn, user, narrow)
        read_side = _NarrowWindow(conn, user, narrow, ids_only=ids_only, light=light).side
    if anchor == "newest":
        anchor_id = LARGER_THAN_MAX_MESSAGE_ID
    elif anchor == "oldest":
        anchor_id = 0
    else:
        anchor_id = int(anchor)
    anchored_to_left = anchor_id == 0
    anchored_to_right = anchor_id >= LARGER_THAN_MAX_MESSAGE_ID
    if anchored_to_right:
        num_after = 0
    before: list[Any] = []
    after: list[Any] = []
    at_anchor: list[Any] = []
    if num_before > 0 and not anchored_to_left:
        before = read_side("before", anchor_id, num_before)
        before.reverse()
    if include_anchor and not anchored_to_right and not anchored_to_left:
        at_anchor = read_side("at", anchor_id, 0)
    if num_after > 0:
        after = read_side("after", anchor_id, num_after)
    return WindowRows(
        anchor=anchor_id,
        rows=before + at_anchor + after,
        found_anchor=bool(at_anchor),
        found_oldest=anchored_to_left or len(before) < num_before,
        found_newest=anchored_to_right or len(after) < num_after,
        stream_names=stream_names,
    )


class _NarrowWindow:
    """The rows of any compiled narrow around numeric anchors."""

    def __init__(
        self, conn: Conn, user: User, narrow: CompiledNarrow, *, ids_only: bool, light: bool
    ) -> None:
        self.conn = conn
        self.narrow = narrow
        self.base = _base_query(narrow, user, ids_only, light)
        self.id_col = _id_column(narrow)
        # Light rows are tuples in `LIGHT_ROW` order, as the conversation window gives them.
        self.read: Callable[[sa.Select[Any]], list[Any]] = conn.tuples if light else conn.all

    def side(self, side: Side, anchor_id: int, limit: int) -> list[Any]:
        # Message ids are 32-bit; PostgreSQL refuses to compare them with the 10**16 sentinel.
        bound = min(anchor_id, MAX_SQL_ID)
        if side == "at":
            base = self.base
            if self.narrow.index_search:
                base = base.where(_search_ids_condition(self.narrow))
            return list(self.read(base.where(self.id_col == bound)))
        descending = side == "before"
        return _side(
            self.conn, self.read, self.narrow, self.base, self.id_col, bound, descending, limit
        )


SEARCH_BATCH = 1000


def _search_ids_condition(narrow: CompiledNarrow) -> Any:
    """The index-walked search operands as a plain condition (for single rows, not windows)."""
    return sa.and_(*(search.search_condition_sqlite(o) for o in narrow.index_search))


def _side(
    conn: Conn,
    read: Callable[[sa.Select[Any]], list[Any]],
    narrow: CompiledNarrow,
    base: sa.Select[Any],
    id_col: Any,
    bound: int,
    descending: bool,
    limit: int,
) -> list[Any]:
    """The `limit` rows nearest the anchor on one side, nearest first.

    A search narrow on SQLite walks the full-text index outwards from the anchor in batches and
    filters each batch with the rest of the narrow, rather than joining every match.
    """
    order = id_col.desc() if descending else id_col
    if not narrow.index_search:
        where = id_col < bound if descending else id_col > bound
        return list(read(base.where(where).order_by(order).limit(limit)))
    rows: list[Any] = []
    cursor = bound
    while len(rows) < limit:
        ids = search.index_walk(conn, narrow.index_search, cursor, descending, SEARCH_BATCH)
        if not ids:
            break
        found = read(base.where(M.id.in_(ids)).order_by(order))
        rows += found[: limit - len(rows)]
        cursor = ids[-1]
        if len(ids) < SEARCH_BATCH:
            break
    return rows


def fetch_window(
    conn: Conn,
    user: User,
    terms: Sequence[Term],
    anchor: int | str,
    num_before: int,
    num_after: int,
    include_anchor: bool,
    *,
    apply_markdown: bool,
    client_gravatar: bool,
) -> Window:
    if num_before + num_after > MAX_MESSAGES_PER_FETCH:
        raise ChatError(f"Too many messages requested (maximum {MAX_MESSAGES_PER_FETCH}).")
    search_terms = [t for t in terms if t.operator == "search" and not t.negated]
    messages: list[Any] | orjson.Fragment
    if not search_terms:
        # The common case: cached message objects, assembled as JSON fragments.
        window = window_rows(
            conn, user, terms, anchor, num_before, num_after, include_anchor, light=True
        )
        messages = messages_fragment(
            conn,
            user,
            window.rows,
            apply_markdown=apply_markdown,
            client_gravatar=client_gravatar,
            stream_names=window.stream_names,
        )
    else:
        window = window_rows(conn, user, terms, anchor, num_before, num_after, include_anchor)
        messages = message_dicts(
            conn, user, window.rows, apply_markdown=apply_markdown, client_gravatar=client_gravatar
        )
        words = [w for t in search_terms for w in search.search_words(str(t.operand))]
        for message in messages:
            message["match_content"] = search.highlight_html(message["content"], words)
            message["match_subject"] = search.highlight_topic(message["subject"], words)
    return Window(
        anchor=window.anchor,
        found_anchor=window.found_anchor,
        found_oldest=window.found_oldest,
        found_newest=window.found_newest,
        history_limited=False,
        messages=messages,
    )


class _Recipients:
    """What `display_recipient` shows for each recipient of a batch of messages.

    A stream shows its name; a DM shows its participants (`{id, email, full_name,
    is_mirror_dummy}`), which for a 1:1 DM are the sender and the personal recipient.
    """

    def __init__(
        self, conn: Conn, rows: Sequence[Any], known_names: Mapping[int, str] | None = None
    ) -> None:
        known = known_names or {}
        unknown = {r["stream_id"] for r in rows if r["stream_id"] is not None} - known.keys()
        self.stream_names = {**known, **stream_queries.stream_names_by_id(conn, unknown)}
        dm_recipients = list({r["recipient_id"] for r in rows if r["stream_id"] is None})
        self.personal: dict[int, int] = {}
        self.huddles: dict[int, list[int]] = {}
        self.users: dict[int, Any] = {}
        if not dm_recipients:
            return
        for r in conn.all(
            sa.select(schema.recipient).where(schema.recipient.c.id.in_(dm_recipients))
        ):
            if r["type"] == schema.RECIPIENT_PERSONAL:
                self.personal[r["id"]] = r["type_id"]
        huddle_recipients = [rid for rid in dm_recipients if rid not in self.personal]
        if huddle_recipients:
            for r in conn.all(
                sa.select(schema.huddle.c.recipient_id, schema.huddle_member.c.user_id)
                .join(schema.huddle_member, schema.huddle_member.c.huddle_id == schema.huddle.c.id)
                .where(schema.huddle.c.recipient_id.in_(huddle_recipients))
            ):
                self.huddles.setdefault(r["recipient_id"], []).append(r["user_id"])
        needed = set(self.personal.values()) | {u for ids in self.huddles.values() for u in ids}
        needed |= {r["sender_id"] for r in rows if r["stream_id"] is None}
        self.users = {
            r["id"]: r
            for r in conn.all(sa.select(U.id, U.email, U.full_name).where(U.id.in_(list(needed))))
        }

    def _entry(self, user_id: int) -> dict[str, Any]:
        u = self.users[user_id]
        return {
            "id": user_id,
            "email": u["email"],
            "full_name": u["full_name"],
            "is_mirror_dummy": False,
        }

    def display(self, row: Any) -> Any:
        if row["stream_id"] is not None:
            return self.stream_names.get(row["stream_id"], "")
        rid = row["recipient_id"]
        if rid in self.personal:
            ids = {self.personal[rid], row["sender_id"]}
        else:
            ids = set(self.huddles.get(rid, []))
        return [self._entry(u) for u in sorted(ids)]


def message_core(
    row: Mapping[str, Any],
    *,
    apply_markdown: bool,
    reactions: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The fields of a message object that depend on the message alone (its last edit and its
    reactions).

    What `messages_fragment` caches: nothing here changes unless `last_edit_time` or
    `reaction_version` does.
    """
    kind = "stream" if row["stream_id"] is not None else "private"
    core: dict[str, Any] = {
        "id": row["id"],
        "content": row["rendered_content"] if apply_markdown else row["content"],
        "recipient_id": row["recipient_id"],
        "timestamp": int(row["date_sent"]),
        "client": row["sending_client"],
        "subject": row["topic"] if kind == "stream" else "",
        "is_me_message": bool(row["is_me_message"]),
        "reactions": reactions or [],
        "submessages": [],
        "type": kind,
        "content_type": "text/html" if apply_markdown else "text/x-markdown",
    }
    if kind == "stream":
        core["stream_id"] = row["stream_id"]
    if row["last_edit_time"] is not None:
        core["last_edit_timestamp"] = int(row["last_edit_time"])
    if row["edit_history"]:
        core["edit_history"] = orjson.loads(row["edit_history"])
    return core


def message_object(
    row: Mapping[str, Any],
    sender: Mapping[str, Any],
    realm_str: str,
    display_recipient: Any,
    flag_names: list[str],
    topic_links: list[dict[str, str]],
    *,
    apply_markdown: bool,
    client_gravatar: bool,
    reactions: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A message as Zulip shows it, from its row (message columns) and its sender's row.

    The one definition of the message object, shared by fetches and `message` events:
    `message_core` + `sender_fields` + what depends on the reader or on the realm's current
    linkifiers (display_recipient, flags, topic_links).
    """
    return {
        **message_core(row, apply_markdown=apply_markdown, reactions=reactions),
        **sender_fields(sender, realm_str, client_gravatar=client_gravatar),
        "display_recipient": display_recipient,
        "flags": flag_names,
        "topic_links": topic_links,
    }


class TopicLinks:
    """`topic_links` of the topics of one batch, from the realm's linkifiers as they are now."""

    def __init__(self, linkifiers: Sequence[Linkifier]) -> None:
        self.linkifiers = linkifiers
        self._by_topic: dict[str, list[dict[str, str]]] = {}

    def of(self, row: Mapping[str, Any]) -> list[dict[str, str]]:
        if row["stream_id"] is None:
            return []
        topic: str = row["topic"]
        links = self._by_topic.get(topic)
        if links is None:
            links = self._by_topic[topic] = render_topic_links(
                topic, RenderContext(linkifiers=self.linkifiers)
            )
        return links


# `flags` as JSON by bit pattern: a window has a handful of distinct patterns.
_FLAGS_JSON: dict[int | None, bytes] = {}


def _flags_json(bits: int | None) -> bytes:
    found = _FLAGS_JSON.get(bits)
    if found is None:
        names = flags.flags_list(bits) if bits is not None else ["read", "historical"]
        found = _FLAGS_JSON[bits] = orjson.dumps(names)
    return found


def message_dicts(
    conn: Conn,
    user: User,
    rows: Iterable[Any],
    *,
    apply_markdown: bool,
    client_gravatar: bool,
) -> list[dict[str, Any]]:
    rows = list(rows)
    if not rows:
        return []
    sender_ids = {row["sender_id"] for row in rows}
    senders = {
        r["id"]: r
        for r in conn.all(
            sa.select(*message_display.SENDER_COLUMNS).where(U.id.in_(list(sender_ids)))
        )
    }
    realm_str = conn.scalar(
        sa.select(schema.realm.c.string_id).where(schema.realm.c.id == user.realm_id)
    )
    recipients = _Recipients(conn, rows)
    topic_links = TopicLinks(realm_linkifiers(conn, user.realm_id))
    reactions = reactions_of_rows(conn, rows)
    out = []
    for row in rows:
        bits = row["user_flags"]
        out.append(
            message_object(
                row,
                senders[row["sender_id"]],
                realm_str,
                recipients.display(row),
                flags.flags_list(bits) if bits is not None else ["read", "historical"],
                topic_links.of(row),
                apply_markdown=apply_markdown,
                client_gravatar=client_gravatar,
                reactions=reactions.get(row["id"]),
            )
        )
    return out


def messages_fragment(
    conn: Conn,
    user: User,
    rows: Sequence[tuple[Any, ...]],
    *,
    apply_markdown: bool,
    client_gravatar: bool,
    stream_names: Mapping[int, str] | None = None,
) -> orjson.Fragment:
    """The message objects of light rows (tuples in `LIGHT_ROW` order), as one JSON array.

    Equal to `message_dicts` once parsed. The message-only part of each object with the reader's
    flags, and the message's head, come from the cache, by light row; the part that depends on
    the sender, the recipient and the topic is built once per distinct head (a window has a
    handful).
    `stream_names` are names the caller has just read (a conversation's stream), which then need
    no second lookup.
    """
    if not rows:
        return orjson.Fragment(b"[]")
    # Per-row work is done by C-level iteration (map, slice assignment): a window is a hundred
    # rows, and a Python-level loop over them cost more than the lookups themselves.
    caches = message_cache.of(conn)
    cached = list(map(caches.with_flags[apply_markdown].recent.get, rows))
    entries = (
        _fill_cache(conn, caches, rows, cached, apply_markdown)
        if None in cached
        else cast(list[message_cache.Cached], cached)
    )
    heads = list(map(_HEAD_OF, entries))
    # Equal heads are (almost always) one object, as message_cache interns them, so for this call
    # a head's id stands for the head: ints hash and compare far faster than tuples. Two equal
    # heads with two ids only cost one more reader part, never a wrong one.
    keys = list(map(id, heads))
    ends = _ReaderParts(
        conn,
        caches,
        user,
        dict(zip(keys, heads, strict=True)),
        client_gravatar,
        stream_names or {},
    )
    # Each object is its cached core with flags and its reader part (which ends with `},`),
    # joined once, with `[` before the first and the last comma turned into the closing bracket.
    pieces: list[bytes] = [b""] * (2 * len(entries))
    pieces[0::2] = map(_CORE_OF, entries)
    pieces[1::2] = map(ends.by_key.__getitem__, keys)
    pieces[0] = b"[" + pieces[0]
    pieces[-1] = pieces[-1][:-1] + b"]"
    return orjson.Fragment(b"".join(pieces))


def _fill_cache(
    conn: Conn,
    caches: message_cache.MessageCaches,
    rows: Sequence[tuple[Any, ...]],
    cached: list[message_cache.Cached | None],
    apply_markdown: bool,
) -> list[message_cache.Cached]:
    """`cached` (read from the cache's recent generation) completed: the objects with flags of
    the rows it misses, from the older generation, else built from the cached cores of their
    versions, and those from the message rows where they are missing too."""
    with_flags = caches.with_flags[apply_markdown]
    cached = [
        with_flags.get(row) if entry is None else entry
        for row, entry in zip(rows, cached, strict=True)
    ]
    missing: dict[tuple[Any, ...], message_cache.Version] = {
        row: row[L.VERSION] for row, entry in zip(rows, cached, strict=True) if entry is None
    }
    cache = caches.objects[apply_markdown]
    cores = {v: core for v in missing.values() if (core := cache.get(v)) is not None}
    unknown = {v[L.ID]: v for v in missing.values() if v not in cores}
    if unknown:
        full = conn.all(sa.select(schema.message).where(M.id.in_(list(unknown))))
        reactions = reactions_of_rows(conn, full)
        built = {
            unknown[r["id"]]: (
                message_core(r, apply_markdown=apply_markdown, reactions=reactions.get(r["id"])),
                message_cache.head_of(r),
            )
            for r in full
        }
        cores.update(caches.store(apply_markdown, built))
    flagged = {
        row: message_cache.Cached(
            b"".join((cores[version].core, b'"flags":', _flags_json(row[L.FLAGS]), b",")),
            cores[version].head,
        )
        for row, version in missing.items()
    }
    caches.store_with_flags(apply_markdown, flagged)
    return [
        flagged[row] if entry is None else entry for row, entry in zip(rows, cached, strict=True)
    ]


_CORE_OF = operator.attrgetter("core")
_HEAD_OF = operator.attrgetter("head")


class _ReaderParts:
    """The end of each message object (sender fields, display_recipient, topic_links, closing
    brace and a comma) by the message's head: built once per distinct head of a window (a
    conversation has a handful). `by_key` is keyed as `distinct` is (by the head's id)."""

    def __init__(
        self,
        conn: Conn,
        caches: message_cache.MessageCaches,
        user: User,
        distinct: Mapping[int, message_cache.Head],
        client_gravatar: bool,
        stream_names: Mapping[int, str],
    ) -> None:
        realm = message_display.realm_display(conn, caches, user.realm_id)
        senders = message_display.sender_json(
            conn, realm, {head[0] for head in distinct.values()}, client_gravatar
        )
        heads = [
            {"sender_id": head[0], "recipient_id": head[1], "stream_id": head[2]}
            for head in distinct.values()
        ]
        recipients = _Recipients(conn, heads, stream_names)
        linkifiers = message_display.current_linkifiers(conn, realm)
        display_json: dict[tuple[Any, ...], bytes] = {}
        self.by_key: dict[int, bytes] = {}
        for key, (sender_id, recipient_id, stream_id, topic), head in zip(
            distinct, distinct.values(), heads, strict=True
        ):
            # A stream shows its name; a 1:1 DM shows its sender too, so it is per sender.
            shown_as = (stream_id, recipient_id, None if stream_id is not None else sender_id)
            display = display_json.get(shown_as)
            if display is None:
                display = display_json[shown_as] = orjson.dumps(recipients.display(head))
            links = (
                message_display.topic_links_json(caches, linkifiers, topic)
                if stream_id is not None
                else b"[]"
            )
            self.by_key[key] = b"".join(
                (
                    senders[sender_id],
                    b',"display_recipient":',
                    display,
                    b',"topic_links":',
                    links,
                    b"},",
                )
            )


def readable_message(conn: Conn, user: User, message_id: int) -> Any:
    """The message with the user's flags, if the user may read it; otherwise None.

    A message of an archived (deactivated) stream is readable by nobody, as in Zulip, where
    archiving makes the stream private and ends every subscription: every path that reads,
    changes, moves, deletes or flags a message by id comes through here, so all of them call
    it `Invalid message(s)` alike.
    """
    row = conn.one(
        sa.select(*schema.message.c, UM.flags.label("user_flags"))
        .select_from(
            schema.message.outerjoin(
                schema.user_message, sa.and_(UM.message_id == M.id, UM.user_id == user.id)
            )
        )
        .where(M.id == message_id, M.realm_id == user.realm_id)
    )
    if row is None:
        return None
    if row["stream_id"] is None:
        return row if row["user_flags"] is not None else None
    stream = stream_queries.stream_by_id(conn, user.realm_id, row["stream_id"])
    if stream is None:
        return None
    if row["user_flags"] is not None:
        return row
    if not stream["history_public_to_subscribers"]:
        return None
    subscribed = stream_queries.active_subscription(conn, user.id, stream["id"]) is not None
    return row if stream_queries.can_read_stream(user, stream, subscribed) else None


def message_payload(conn: Conn, reader: User, message_id: int) -> dict[str, Any]:
    """A message object without personal flags, as carried by `message` events.

    It carries `raw_content` and `avatar_is_gravatar` too, for each queue to shape it as its
    client asked (apply_markdown, client_gravatar); `shape_event` removes both.
    """
    row = conn.one(
        sa.select(*schema.message.c, sa.literal(0).label("user_flags")).where(M.id == message_id)
    )
    assert row is not None
    [message] = message_dicts(conn, reader, [row], apply_markdown=True, client_gravatar=False)
    message.pop("flags")
    message["raw_content"] = row["content"]
    sender_source = conn.scalar(sa.select(U.avatar_source).where(U.id == row["sender_id"]))
    message["avatar_is_gravatar"] = sender_source == "G"
    return message
