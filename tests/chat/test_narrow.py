"""The narrow language: every operator, both encodings, errors, search highlights, and a property
test that the compiler returns exactly what a brute-force Python filter over the same data does."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atrium.chat import schema
from atrium.chat.errors import ChatError
from atrium.chat.narrow import parse_narrow
from atrium.chat.queries.messages import window_rows
from tests.chat.conftest import ChatHarness, api_ok, assert_json_error

pytestmark = pytest.mark.anyio

WORDS = ("apple", "banana", "cherry", "dragon", "elephant", "falcon")
TOPICS = ("alpha", "Alpha", "beta", "✔ alpha", "gamma")


async def fetch_ids(chat: ChatHarness, user: Any, narrow: list[Any]) -> list[int]:
    body = await api_ok(
        chat, "GET", "/messages", user, anchor="oldest", num_before=0, num_after=1000, narrow=narrow
    )
    return [m["id"] for m in body["messages"]]


async def test_operators_and_legacy_forms(chat: ChatHarness) -> None:
    verona = await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    a = await chat.send_stream(chat.hamlet, "Verona", "Lunch", "see https://example.com")
    b = await chat.send_stream(chat.cordelia, "Verona", "✔ done", "fixed")
    dm = await chat.send_dm(chat.hamlet, [chat.cordelia], "hi")
    group = await chat.send_dm(chat.hamlet, [chat.cordelia, chat.iago], "all of us")
    me = chat.cordelia
    assert await fetch_ids(chat, me, [["stream", "Verona"]]) == [a, b]
    assert await fetch_ids(chat, me, [{"operator": "stream", "operand": verona}]) == [a, b]
    assert await fetch_ids(chat, me, [{"operator": "topic", "operand": "lunch"}]) == [a]
    assert await fetch_ids(chat, me, [["subject", "LUNCH"]]) == [a]
    assert await fetch_ids(chat, me, [["sender", chat.hamlet.email]]) == [a, dm, group]
    assert await fetch_ids(chat, me, [{"operator": "sender", "operand": chat.hamlet.id}]) == [
        a,
        dm,
        group,
    ]
    assert await fetch_ids(chat, me, [["is", "private"]]) == [dm, group]
    assert await fetch_ids(chat, me, [["is", "dm"]]) == [dm, group]
    assert await fetch_ids(chat, me, [["pm-with", chat.hamlet.email]]) == [dm]
    assert await fetch_ids(chat, me, [{"operator": "dm", "operand": [chat.hamlet.id]}]) == [dm]
    both = [chat.hamlet.id, chat.iago.id]
    assert await fetch_ids(chat, me, [{"operator": "dm", "operand": both}]) == [group]
    assert await fetch_ids(chat, me, [["group-pm-with", chat.iago.email]]) == [group]
    assert await fetch_ids(chat, me, [{"operator": "dm-including", "operand": chat.hamlet.id}]) == [
        dm,
        group,
    ]
    assert await fetch_ids(chat, me, [["is", "resolved"]]) == [b]
    assert await fetch_ids(chat, me, [["has", "link"]]) == [a]
    assert await fetch_ids(chat, me, [{"operator": "id", "operand": b}]) == [b]
    assert await fetch_ids(chat, me, [["id", str(b)]]) == [b]
    assert await fetch_ids(chat, me, [["-is", "private"]]) == [a, b]
    negated = [{"operator": "stream", "operand": "Verona", "negated": True}]
    assert await fetch_ids(chat, me, negated) == [dm, group]
    assert await fetch_ids(chat, me, [["streams", "public"]]) == [a, b]
    assert await fetch_ids(chat, me, [["in", "all"]]) == [a, b, dm, group]
    assert await fetch_ids(chat, me, [["in", "home"]]) == [a, b, dm, group]
    assert await fetch_ids(chat, me, [["is", "unread"], ["is", "starred"]]) == []
    near = await api_ok(
        chat,
        "GET",
        "/messages",
        me,
        anchor="newest",
        num_before=1,
        num_after=1,
        narrow=[["near", str(b)]],
    )
    assert near["anchor"] == b and [m["id"] for m in near["messages"]] == [a, b, dm]


async def test_muted_streams_and_in_home(chat: ChatHarness) -> None:
    quiet = await chat.make_stream("Quiet", [chat.hamlet, chat.cordelia])
    loud = await chat.send_stream(chat.hamlet, "Quiet", "t", "shh")
    await chat.runtime.db.write(
        lambda conn: conn.execute(
            sa.update(schema.subscription)
            .where(schema.subscription.c.stream_id == quiet)
            .values(is_muted=True)
        )
    )
    assert await fetch_ids(chat, chat.cordelia, [["in", "home"]]) == []
    # A stream narrow still shows the muted stream.
    assert await fetch_ids(chat, chat.cordelia, [["stream", "Quiet"], ["in", "home"]]) == [loud]


async def test_search_highlights(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    mid = await chat.send_stream(chat.hamlet, "Verona", "Banana plans", "The bananas are **ripe**")
    await chat.send_stream(chat.hamlet, "Verona", "other", "nothing here")
    body = await api_ok(
        chat,
        "GET",
        "/messages",
        chat.cordelia,
        anchor="newest",
        num_before=10,
        num_after=0,
        narrow=[{"operator": "search", "operand": "banana"}],
    )
    [message] = body["messages"]
    assert message["id"] == mid
    assert message["match_content"] == (
        '<p>The <span class="highlight">bananas</span> are <strong>ripe</strong></p>'
    )
    assert message["match_subject"] == '<span class="highlight">Banana</span> plans'
    phrase = await fetch_ids(chat, chat.cordelia, [["search", '"are **ripe"']])
    assert phrase == [mid]
    assert await fetch_ids(chat, chat.cordelia, [["search", '"ripe are"']]) == []
    # FTS syntax in user input is inert.
    assert await fetch_ids(chat, chat.cordelia, [["search", 'ripe OR "x" NEAR(a b) *']]) == []


@pytest.mark.parametrize(
    ("narrow", "msg", "code"),
    [
        ([["bogus", "x"]], "Invalid narrow operator: unknown operator bogus", "BAD_NARROW"),
        ([["stream", "nowhere"]], "Invalid narrow operator: unknown stream nowhere", "BAD_NARROW"),
        ([["is", "nice"]], "Invalid narrow operator: unknown 'is' operand nice", "BAD_NARROW"),
        ([["has", "fun"]], "Invalid narrow operator: unknown 'has' operand fun", "BAD_NARROW"),
        ([["in", "space"]], "Invalid narrow operator: unknown 'in' operand space", "BAD_NARROW"),
        (
            [["streams", "all"]],
            "Invalid narrow operator: unknown streams operand all",
            "BAD_NARROW",
        ),
        (
            [["sender", "who@x.test"]],
            "Invalid narrow operator: unknown user who@x.test",
            "BAD_NARROW",
        ),
        (
            [["dm", "who@x.test"]],
            "Invalid narrow operator: unknown user in who@x.test",
            "BAD_NARROW",
        ),
        ([["id", "abc"]], "Invalid narrow operator: Invalid message ID", "BAD_NARROW"),
        (
            [["stream", "Verona"], ["is", "dm"]],
            "No message can be both a stream and a DM message",
            "BAD_NARROW",
        ),
        ([{"operator": "topic", "operand": 5}], 'elem["operand"] is not a string', "BAD_REQUEST"),
        (
            [{"operator": "search", "operand": " "}],
            'elem["operand"] cannot be blank.',
            "BAD_REQUEST",
        ),
        ([["stream"]], "element is not a string pair", "BAD_REQUEST"),
    ],
)
async def test_bad_narrows(chat: ChatHarness, narrow: list[Any], msg: str, code: str) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    resp = await chat.get(
        "/messages", chat.hamlet, anchor="newest", num_before=1, num_after=0, narrow=narrow
    )
    body = assert_json_error(resp, msg, code=code)
    if code == "BAD_NARROW":
        assert body["desc"] == msg.removeprefix("Invalid narrow operator: ")


async def test_narrows_never_leak(chat: ChatHarness) -> None:
    await chat.make_stream("secret", [chat.hamlet], invite_only=True)
    hidden = await chat.send_stream(chat.hamlet, "secret", "t", "apple")
    other_dm = await chat.send_dm(chat.hamlet, [chat.iago], "apple")
    for narrow in (
        [["search", "apple"]],
        [["id", str(hidden)]],
        [["id", str(other_dm)]],
        [["stream", "secret"]],
        [["sender", chat.hamlet.email]],
        [["streams", "public"]],
        [["-is", "starred"]],
    ):
        assert await fetch_ids(chat, chat.cordelia, narrow) == [], narrow


# --- The property test --------------------------------------------------------------------------


@dataclass
class Msg:
    id: int
    stream: str | None
    topic: str
    sender: int
    content: str
    participants: frozenset[int] = frozenset()
    flags: set[str] = field(default_factory=set)


@dataclass
class World:
    me: int
    users: dict[str, int]
    emails: dict[str, str]
    stream_ids: dict[str, int]
    subscribed: set[str]
    history_streams: set[str]
    public: set[str]
    messages: list[Msg]
    received: set[int]


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def brute_force(world: World, terms: list[dict[str, Any]]) -> list[int]:
    """What Zulip's narrow semantics give, computed the slow way."""
    history = False
    for t in terms:
        if t.get("negated"):
            continue
        if t["operator"] == "stream":
            history = _stream_name(world, t["operand"]) in world.history_streams
        elif t["operator"] == "streams" and t["operand"] == "public":
            history = True
    if any(t["operator"] == "is" for t in terms):
        history = False
    result = []
    for m in world.messages:
        if m.id not in world.received and not (history and m.stream is not None):
            continue
        flags = m.flags if m.id in world.received else {"read", "historical"}
        if all(_matches(world, m, flags, t) != bool(t.get("negated")) for t in terms):
            result.append(m.id)
    return result


def _stream_name(world: World, operand: Any) -> str:
    if isinstance(operand, int):
        return next(n for n, i in world.stream_ids.items() if i == operand)
    return str(operand)


def _user(world: World, operand: Any) -> int:
    if isinstance(operand, int):
        return operand
    return next(uid for name, uid in world.users.items() if world.emails[name] == operand)


def _matches(world: World, m: Msg, flags: set[str], t: dict[str, Any]) -> bool:
    op, operand = t["operator"], t["operand"]
    if op == "stream":
        return m.stream == _stream_name(world, operand)
    if op == "streams":
        return m.stream in world.public
    if op == "topic":
        return m.stream is not None and m.topic.lower() == operand.lower()
    if op == "sender":
        return m.sender == _user(world, operand)
    if op == "is":
        if operand in {"dm", "private"}:
            return m.stream is None
        if operand == "resolved":
            return m.stream is not None and m.topic.startswith("✔ ")
        if operand == "unread":
            return "read" not in flags
        return operand in flags  # starred, mentioned
    if op == "has":
        return "https://" in m.content
    if op == "search":
        text = _words(m.content) | _words(m.topic)
        return _words(operand) <= text
    if op == "dm":
        ids = operand if isinstance(operand, list) else [_user(world, operand)]
        return m.stream is None and m.participants == frozenset({world.me, *ids})
    if op == "dm-including":
        return m.stream is None and _user(world, operand) in m.participants
    if op == "in":
        return True
    raise AssertionError(op)


def narrow_terms(world: World) -> st.SearchStrategy[list[dict[str, Any]]]:
    names = sorted(world.users)
    others = [n for n in names if world.users[n] != world.me]
    stream = st.sampled_from(sorted(world.stream_ids)).flatmap(
        lambda n: st.sampled_from([n, world.stream_ids[n]])
    )
    user_operand = st.sampled_from(names).flatmap(
        lambda n: st.sampled_from([world.users[n], world.emails[n]])
    )
    term = st.one_of(
        st.builds(lambda o: {"operator": "stream", "operand": o}, stream),
        st.just({"operator": "streams", "operand": "public"}),
        st.builds(lambda o: {"operator": "topic", "operand": o}, st.sampled_from(TOPICS)),
        st.builds(lambda o: {"operator": "sender", "operand": o}, user_operand),
        st.builds(
            lambda o: {"operator": "is", "operand": o},
            st.sampled_from(["dm", "private", "starred", "unread", "mentioned", "resolved"]),
        ),
        st.just({"operator": "has", "operand": "link"}),
        st.builds(
            lambda ws: {"operator": "search", "operand": " ".join(ws)},
            st.lists(st.sampled_from(WORDS), min_size=1, max_size=2),
        ),
        st.builds(
            lambda ns: {"operator": "dm", "operand": sorted(world.users[n] for n in ns)},
            st.lists(st.sampled_from(others), min_size=1, max_size=2, unique=True),
        ),
        st.builds(lambda o: {"operator": "dm-including", "operand": o}, user_operand),
        st.builds(lambda o: {"operator": "in", "operand": o}, st.sampled_from(["home", "all"])),
    )
    negatable = st.tuples(term, st.booleans()).map(lambda p: {**p[0], "negated": p[1]})
    return st.lists(negatable, min_size=0, max_size=3)


async def build_world(chat: ChatHarness) -> World:
    rng = random.Random(7)
    users = {n: chat.users[n].id for n in ("hamlet", "cordelia", "iago")}
    emails = {n: chat.users[n].email for n in users}
    trio = [chat.hamlet, chat.cordelia, chat.iago]
    stream_ids = {
        "Verona": await chat.make_stream("Verona", trio),
        "Denmark": await chat.make_stream("Denmark", [chat.hamlet, chat.iago]),
        "secret": await chat.make_stream("secret", [chat.hamlet, chat.iago], invite_only=True),
    }
    messages: list[Msg] = []
    received: set[int] = set()
    me = chat.cordelia.id
    for i in range(45):
        sender = rng.choice(trio)
        content = " ".join(rng.sample(WORDS, rng.randint(1, 3)))
        if i % 7 == 0:
            content += " https://example.com"
        mentions = i % 5 == 0
        if mentions:
            content += " @**Cordelia, Lear's daughter**"
        kind = rng.choice(["Verona", "Denmark", "secret", "dm", "group"])
        if kind in stream_ids:
            if sender.id == me and kind != "Verona":
                sender = chat.hamlet
            topic = rng.choice(TOPICS)
            mid = await chat.send_stream(sender, kind, topic, content)
            msg = Msg(mid, kind, topic, sender.id, content)
            if kind == "Verona":
                received.add(mid)
        else:
            others = [u for u in trio if u.id != sender.id]
            to = others if kind == "group" else [rng.choice(others)]
            mid = await chat.send_dm(sender, to, content)
            participants = frozenset({sender.id, *(u.id for u in to)})
            msg = Msg(mid, None, "", sender.id, content, participants)
            if me in participants:
                received.add(mid)
        if mid in received:
            if sender.id == me:
                msg.flags.add("read")
            if mentions:
                msg.flags.add("mentioned")
        messages.append(msg)
    # Cordelia stars and reads a few.
    starred = [m.id for m in messages if m.id in received][::3]
    read = [m.id for m in messages if m.id in received][1::4]
    await chat.post("/messages/flags", chat.cordelia, messages=starred, op="add", flag="starred")
    await chat.post("/messages/flags", chat.cordelia, messages=read, op="add", flag="read")
    for m in messages:
        if m.id in starred:
            m.flags.add("starred")
        if m.id in read:
            m.flags.add("read")
    return World(
        me=me,
        users=users,
        emails=emails,
        stream_ids=stream_ids,
        subscribed={"Verona"},
        history_streams={"Verona", "Denmark"},
        public={"Verona", "Denmark"},
        messages=messages,
        received=received,
    )


async def test_narrow_compiler_matches_brute_force(chat: ChatHarness) -> None:
    world = await build_world(chat)
    me = await chat.acting(chat.cordelia)
    db = chat.runtime.db

    @settings(
        max_examples=120,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(terms=narrow_terms(world))
    def check(terms: list[dict[str, Any]]) -> None:
        positive = [t for t in terms if not t["negated"]]
        stream_like = any(t["operator"] in {"stream", "streams"} for t in positive)
        dm_like = any(
            t["operator"] in {"dm", "dm-including"}
            or (t["operator"] == "is" and t["operand"] in {"dm", "private"})
            for t in positive
        )
        try:
            parsed = parse_narrow(terms)
        except ChatError as error:
            assert error.code == "BAD_NARROW" and stream_like and dm_like
            return
        assert not (stream_like and dm_like)
        window = db.read_sync(window_rows, me, parsed, "oldest", 0, 5000, True)
        got = [int(r["id"]) for r in window.rows]
        assert got == brute_force(world, terms), terms

    check()


def test_operators_with_underscores_are_the_hyphenated_ones() -> None:
    # zulip-terminal narrows with `pm_with`; Zulip reads "_" and "-" in operators alike.
    [term] = parse_narrow([{"operator": "pm_with", "operand": "a@example.com"}])
    assert term.operator == "dm"
    [term] = parse_narrow([{"operator": "dm_including", "operand": 5}])
    assert term.operator == "dm-including"
    with pytest.raises(ChatError, match="unknown operator no_such"):
        parse_narrow([{"operator": "no_such", "operand": "x"}])
