"""Property-based fuzzing of every chat operation: no input makes the server answer 5xx.

The operations and their parameters come from the OpenAPI document the server publishes
(`/api/v1/openapi.json`, built from the declarations that validate requests), so a new endpoint
is fuzzed as soon as it is routed. Hypothesis generates the requests: well-typed values mixed with
hostile ones (integers past 64 bits, negative ids, NUL, lone and odd Unicode, invalid JSON, wrong
types, very long strings) in well-formed and malformed bodies, sent as the owner, a member and a
guest. Every answer must be Zulip's envelope (`result`, `msg`, and `code` on errors), never a
5xx, and the server must log no traceback.

`ATRIUM_FUZZ_REQUESTS` sets the number of requests per backend (default 1000, a bounded run for
`make test` that reaches nearly every operation; `make fuzz` sends 100,000) and `ATRIUM_FUZZ_SEED` the seed (fixed by default, so that every run of the suite
sends the same requests and takes the same time; set another to explore).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from tests.chat.conftest import ChatHarness, Member, assert_json_success

pytestmark = [pytest.mark.anyio, pytest.mark.fuzz]

REQUESTS = int(os.environ.get("ATRIUM_FUZZ_REQUESTS", "1000"))
SEED = int(os.environ.get("ATRIUM_FUZZ_SEED") or "1839")

# Zulip errors that carry no `code` at all (kept so by the API's own specification).
CODELESS_ERRORS = {"Draft does not exist", "Cannot deactivate the only organization owner"}

HUGE_INTS = [2**63, 2**63 - 1, -(2**63) - 1, 2**64, 10**20, 2**31, -1, 0]
HOSTILE_TEXT = [
    "",
    " ",
    "null",
    "[]",
    "{}",
    "\x00",
    "a\x00b",
    "\u202eevil",
    "\ufeff",
    "\U0001f600" * 3,
    "\u00b2",
    "\u0661\u0662",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "1e400",
    "NaN",
    "Infinity",
    "-1",
    "1.5",
    "true",
    '"text"',
    "[9223372036854775808]",
    "[-1, 0, 2147483648]",
    '{"a":',
    "[1,2,",
    "[" * 5000,
    # Markdown that scanned quadratically: unclosed link brackets.
    ("[](" * 3400)[:10000],
    '[{"operator":"stream","operand":9223372036854775807}]',
    '[{"operator":"id","operand":"\u00b2"}]',
    '[{"operator":"search","operand":"\x00"}]',
    '[["stream", "general"]]',
    '{"type":"stream","to":[1],"topic":"t","content":"c"}',
    '[{"type":"stream","to":[9223372036854775808],"topic":"t","content":"c"}]',
    '[{"name":"\x00"}]',
    '[{"stream_id":9223372036854775808,"property":"color","value":"#000"}]',
    "%zz%",
    "x" * 70_000,
]


@dataclass
class Probe:
    method: str
    path: str
    role: str
    query: dict[str, str] = field(default_factory=dict)
    form: dict[str, str] = field(default_factory=dict)
    # How the body is sent: "form", "multipart", or one of the malformed kinds.
    body_kind: str = "form"

    def describe(self) -> str:
        shown = {k: (v if len(v) < 200 else v[:200] + "...") for k, v in self.form.items()}
        return f"{self.role} {self.method} {self.path} query={self.query} body={self.body_kind}:{shown}"


# Operations that end the acting user's credentials: the rest of a run would be 401s. Each
# still gets the malformed bodies and bad values of its tests; only the fuzzer leaves them out.
SELF_ENDING = {("DELETE", "/users/me"), ("POST", "/users/me/api_key/regenerate")}


def _operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, item in sorted(document["paths"].items())
        for method, operation in sorted(item.items())
        if (method.upper(), path) not in SELF_ENDING
    ]


def _schema_values(schema: dict[str, Any], ids: list[int], names: list[str]) -> Any:
    """A strategy for plausible values of a JSON schema (not always valid ones)."""
    if "$ref" in schema:
        return st.dictionaries(
            st.sampled_from(["type", "to", "topic", "content", "timestamp", "extra"]),
            st.one_of(st.sampled_from(["stream", "private", ""]), st.lists(st.sampled_from(ids))),
            max_size=6,
        )
    if "anyOf" in schema:
        return st.one_of(*[_schema_values(s, ids, names) for s in schema["anyOf"]])
    kind = schema.get("type")
    if kind == "integer":
        return st.one_of(st.sampled_from(ids), st.sampled_from(HUGE_INTS), st.integers())
    if kind == "boolean":
        return st.booleans()
    if kind == "number":
        return st.floats(allow_nan=False)
    if kind == "string":
        return st.one_of(st.sampled_from(names), st.text(max_size=30))
    if kind == "array":
        items = schema.get("items") or {}
        return st.lists(_schema_values(items, ids, names) if items else _any_json(ids), max_size=4)
    if kind == "object":
        return st.dictionaries(st.sampled_from(names), _any_json(ids), max_size=3)
    return _any_json(ids)


def _any_json(ids: list[int]) -> Any:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.sampled_from(ids),
        st.sampled_from(HUGE_INTS),
        st.text(max_size=12),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(
                st.sampled_from(["operator", "operand", "negated", "name"]), inner, max_size=3
            ),
        ),
        max_leaves=6,
    )


def _encoded(value: Any, as_json: bool) -> str:
    if not as_json and isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # integers past 64 bits: orjson refuses them, json text does not
        return str(value) if isinstance(value, int) else repr(value)


def _param_strategy(schema: dict[str, Any], as_json: bool, ids: list[int], names: list[str]) -> Any:
    typed = _schema_values(schema, ids, names).map(lambda v: _encoded(v, as_json))
    return st.one_of(typed, typed, st.sampled_from(HOSTILE_TEXT), st.text(max_size=40))


def probe_strategy(
    document: dict[str, Any], ids: list[int], names: list[str], others: list[int]
) -> Any:
    """`others`: the users a path may name, so that the acting users are never deactivated
    (which would turn the rest of the run into 401s)."""
    operations = _operations(document)

    @st.composite
    def probes(draw: Any) -> Probe:
        method, path, operation = draw(st.sampled_from(operations))
        probe = Probe(method, path, draw(st.sampled_from(["owner", "member", "guest"])))
        for param in operation["parameters"]:
            if param["in"] == "path":
                pool = others if param["name"] == "user" else ids
                value = draw(st.one_of(st.sampled_from(pool), st.sampled_from(HUGE_INTS)))
                probe.path = probe.path.replace("{" + param["name"] + "}", str(abs(value)))
                continue
            if not draw(st.booleans()) and not (param["required"] and draw(st.booleans())):
                continue
            as_json = "content" in param
            schema = param["content"]["application/json"]["schema"] if as_json else param["schema"]
            probe.query[param["name"]] = draw(_param_strategy(schema, as_json, ids, names))
        body = operation.get("requestBody")
        if body is not None:
            media = body["content"]["application/x-www-form-urlencoded"]
            required = set(media["schema"].get("required", []))
            json_fields = set(media.get("encoding", {}))
            for name, schema in media["schema"]["properties"].items():
                if not draw(st.booleans()) and not (name in required and draw(st.booleans())):
                    continue
                probe.form[name] = draw(_param_strategy(schema, name in json_fields, ids, names))
            if draw(st.integers(0, 9)) == 0:
                probe.form[draw(st.sampled_from(["unknown", "x\x00", "\u00e9"]))] = "1"
            probe.body_kind = draw(
                st.sampled_from(
                    ["form"] * 6
                    + ["multipart", "multipart-no-boundary", "not-utf8", "bad-percent", "json"]
                )
            )
        return probe

    return probes()


def collect_probes(
    document: dict[str, Any],
    ids: list[int],
    names: list[str],
    others: list[int],
    count: int,
    run_seed: int,
) -> list[Probe]:
    """Hypothesis draws the probes; they are then sent from the test's event loop."""
    found: list[Probe] = []

    @seed(run_seed)
    @settings(
        max_examples=count,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(probe_strategy(document, ids, names, others))
    def draw(probe: Probe) -> None:
        found.append(probe)

    draw()
    return found


async def send(chat: ChatHarness, user: Member, probe: Probe) -> Any:
    headers = user.auth()
    url = "/api/v1" + probe.path
    form = probe.form
    kind = probe.body_kind
    # A query string has a length limit of its own (httpx refuses 64 KiB, and percent-encoding
    # can triple a value); long values are tried in bodies.
    query = {k: v[:4_000] for k, v in probe.query.items()}
    if probe.method == "GET" or not form:
        return await chat.client.request(probe.method, url, params=query, headers=headers)
    if kind == "form":
        return await chat.client.request(
            probe.method, url, params=query, data=form, headers=headers
        )
    if kind == "multipart":
        return await chat.client.request(
            probe.method,
            url,
            params=query,
            data=form,
            files={"attachment": ("a.txt", b"\x00\xff")},
            headers=headers,
        )
    raw = "&".join(f"{k}={v}" for k, v in form.items()).encode("utf-8", "surrogatepass")
    content_type = "application/x-www-form-urlencoded"
    if kind == "multipart-no-boundary":
        content_type = "multipart/form-data"
    elif kind == "not-utf8":
        raw += b"&content=\xff\xfe\xc0"
    elif kind == "json":
        content_type = "application/json"
        raw = orjson.dumps(form)
    return await chat.client.request(
        probe.method,
        url,
        params=query,
        content=raw,
        headers={**headers, "Content-Type": content_type},
    )


def check_answer(resp: Any, probe: Probe) -> str | None:
    """What is wrong with an answer, or None."""
    if resp.status_code >= 500:
        return f"{resp.status_code}: {resp.text[:300]}"
    try:
        body = resp.json()
    except ValueError:
        return f"not JSON ({resp.status_code}): {resp.text[:300]}"
    if not isinstance(body, dict) or body.get("result") not in {"success", "error"}:
        return f"no envelope: {resp.text[:300]}"
    if not isinstance(body.get("msg"), str):
        return f"no msg: {resp.text[:300]}"
    if body["result"] == "error":
        if resp.status_code < 400:
            return f"error with status {resp.status_code}"
        if "code" not in body and body["msg"] not in CODELESS_ERRORS:
            return f"error without code: {resp.text[:300]}"
    elif resp.status_code != 200:
        return f"success with status {resp.status_code}"
    return None


async def populate(chat: ChatHarness) -> tuple[list[int], list[str]]:
    """Something for every kind of id to point at, so that requests get past the lookups."""
    await chat.make_stream("general", [chat.desdemona, chat.hamlet, chat.polonius])
    await chat.make_stream("secret", [chat.desdemona], invite_only=True)
    ids = [
        await chat.send_stream(chat.hamlet, "general", "greetings", "hello **world**"),
        await chat.send_stream(chat.desdemona, "secret", "plans", "hidden"),
        await chat.send_dm(chat.hamlet, [chat.cordelia], "psst"),
    ]
    assert_json_success(
        await chat.post(
            "/drafts",
            chat.hamlet,
            drafts=[{"type": "stream", "to": [1], "topic": "t", "content": "draft"}],
        )
    )
    assert_json_success(
        await chat.post(
            "/scheduled_messages",
            chat.hamlet,
            type="stream",
            to=1,
            topic="later",
            content="soon",
            scheduled_delivery_timestamp=4_000_000_000,
        )
    )
    assert_json_success(
        await chat.post(
            "/user_groups/create",
            chat.desdemona,
            name="crew",
            members=[chat.hamlet.id],
            description="d",
        )
    )
    assert_json_success(
        await chat.post(
            "/realm/filters",
            chat.desdemona,
            pattern="#(?P<id>[0-9]+)",
            url_template="https://example.com/{id}",
        )
    )
    ids += list(range(1, 12))
    names = [
        "general",
        "secret",
        "greetings",
        chat.hamlet.email,
        chat.desdemona.email,
        "stream",
        "private",
        "add",
        "remove",
        "read",
        "starred",
        "change_all",
        "newest",
        "oldest",
        "first_unread",
        "color",
        "is_muted",
        "#ff0000",
        "mute_topic",
    ]
    return ids, names


async def test_no_request_makes_the_server_fail(
    chat: ChatHarness, caplog: pytest.LogCaptureFixture
) -> None:
    run_seed = SEED
    document = assert_json_success_raw(await chat.client.get("/api/v1/openapi.json"))
    ids, names = await populate(chat)
    others = [chat.cordelia.id, chat.iago.id, chat.shiva.id]
    probes = collect_probes(document, ids, names, others, REQUESTS, run_seed)
    assert len(probes) >= REQUESTS * 0.9, len(probes)
    users = {"owner": chat.desdemona, "member": chat.hamlet, "guest": chat.polonius}
    failures: list[str] = []
    statuses: dict[int, int] = {}
    caplog.set_level(logging.ERROR)
    for probe in probes:
        resp = await send(chat, users[probe.role], probe)
        statuses[resp.status_code] = statuses.get(resp.status_code, 0) + 1
        problem = check_answer(resp, probe)
        if problem is not None:
            failures.append(f"{probe.describe()}\n    -> {problem}")
    tracebacks = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    summary = f"seed {run_seed}, {len(probes)} requests, statuses {sorted(statuses.items())}"
    print(summary)  # shown with -s: the figure a long run reports
    assert not failures, summary + "\n" + "\n".join(failures[:20])
    assert not tracebacks, summary + "\n" + "\n".join(r.getMessage() for r in tracebacks[:20])
    # The run reached past validation, not only the parameter checks.
    assert statuses.get(200, 0) > len(probes) * 0.03, summary


def assert_json_success_raw(resp: Any) -> dict[str, Any]:
    assert resp.status_code == 200, resp.text
    document: dict[str, Any] = resp.json()
    return document
