"""api.php under generated and hostile input: every module and action that `action=paraminfo`
describes (so a new module is fuzzed by itself), GET and POST, anonymous and logged in.

Each request picks an action (for `query`: list, prop and meta modules, maybe a generator), a
random subset of its parameters and of the main module's, and for each a value drawn from its
declared type or a hostile one (values around 2**63, bad timestamps, over-long and invalid
titles, NUL and control characters, `\\x1f` multi-values, too many values, garbage `continue`).
Every answer must be below 500, an error must come in MediaWiki's envelope with the
`MediaWiki-API-Error` header and never be an `internal_api_error_*`, and nothing may be logged
as an error. `ATRIUM_FUZZ_REQUESTS` sets the number of requests (default 1,000 in `make test`, 100,000 in
`make fuzz`) and
`ATRIUM_FUZZ_SEED` the seed; a failure lists its requests, so each can be replayed.
"""

from __future__ import annotations

import json
import logging
import os
import random
from typing import Any
from urllib.parse import urlencode
from xml.etree import ElementTree

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = [pytest.mark.anyio, pytest.mark.fuzz]

REQUESTS = int(os.environ.get("ATRIUM_FUZZ_REQUESTS", "1000"))
SEED = int(os.environ.get("ATRIUM_FUZZ_SEED", "1839"))

INTS = [
    "0", "1", "-1", "5", "10", "500", "5001", "2147483648", "9223372036854775807",
    "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
    "+9223372036854775807", "100000000000000000000", "1e400", "NaN", "1.5", " 5", "abc", "",
    "max", "MAX", "\u0663", "\u00b2", "0x10", "1_000",
]  # fmt: skip
TITLES = [
    "Main Page", "Sandbox", "Fuzz page", "Talk:Sandbox", "Category:Things", "Template:Box",
    "File:Nothing.png", "User:Alice", "Special:Random", "Media:X.png", "Deleted fuzz",
    "en:Interwiki", "a#fragment", "<bad>", "[[x]]", "A" * 256, "B" * 300, ":", "Talk:", " ",
    "Ünïcödé", "\u05e9\u05dc\u05d5\u05dd", "\U0001f600", "x\x00y", "Redirect fuzz",
]  # fmt: skip
HOSTILE = [
    "", " ", "|", "||", "\x1f", "\x1fa\x1fb", "\x00", "\x07\x1b", "%", "_", "\\", "'", '"',
    "<script>alert(1)</script>", "{{subst:x}}", "a" * 60000, "\ud7ff\ue000", "\u202e", "\ufeff",
    "9223372036854775808", "-1", "|".join(str(i) for i in range(60)),
    "|".join(str(i) for i in range(600)), "*", "max", "null", "[]", "{}", "true",
    # Template bombs: nested argument doubling, a wide call tree.
    "{{Arg|" * 8 + "x" + "}}" * 8, "{{{1}}}" * 50, "{{L6}}" * 10,
]  # fmt: skip
TIMESTAMPS = [
    "2026-01-01T00:00:00Z", "20260101000000", "now", "0", "-1", "99999999999999",
    "20261301000000", "2026-02-30", "9223372036854775808", "1e20", "yesterday", "",
]  # fmt: skip
CONTINUES = [
    "x", "x|y", "1|2", "1|2|3|4|5", "-1|-1", "9223372036854775808|1", "1|9223372036854775808",
    "\u00b2|1", "20260101000000|1", "0|Sandbox|1", "||", "-||", "Sandbox|", "|Sandbox",
    "name|Alice|20260101000000|1", "id|9223372036854775808|0|0", "a" * 1000,
]  # fmt: skip
USERS = [
    "Admin", "Alice", "Robot", "Nobody here", "127.0.0.1", "::1", "10.0.0.0/8", "#1",
    "#9223372036854775808", "User:Alice", "a|b", "@x", "x>y", "",
]  # fmt: skip
MAIN_VALUES: dict[str, list[str]] = {
    "formatversion": ["1", "2", "latest", "0", "3", "x"],
    "errorformat": ["bc", "plaintext", "wikitext", "html", "raw", "none", "x"],
    "uselang": ["en", "de", "fr", "qqx", "user", "content", "zz", "\x00"],
    "errorlang": ["en", "de", "uselang", "content", "zz"],
    "assert": ["anon", "user", "bot", "x"],
    "assertuser": ["Admin", "Alice", "Nobody", "#1"],
    "maxlag": ["5", "-1", "x", "9223372036854775808"],
    "requestid": ["r1", "\x00", "a" * 1000],
    "curtimestamp": ["1"],
    "responselanginfo": ["1"],
    "servedby": ["1"],
    "utf8": ["1"],
    "ascii": ["1"],
    "smaxage": ["0", "9223372036854775808", "-5"],
    "maxage": ["0", "60", "x"],
    "origin": ["*"],
}


class Fuzzer:
    def __init__(self, rng: random.Random, modules: dict[str, dict[str, Any]]) -> None:
        self.rng = rng
        self.modules = modules
        self.actions = [m for path, m in modules.items() if m.get("group") == "action"]
        self.query_modules = {
            group: [m for m in modules.values() if m.get("group") == group]
            for group in ("list", "prop", "meta")
        }

    def value(self, param: dict[str, Any]) -> str:
        rng = self.rng
        if rng.random() < 0.15:
            return rng.choice(HOSTILE)
        kind = param["type"]
        count = 1
        if param.get("multi"):
            count = rng.choice([1, 1, 2, 3, 51] if rng.random() < 0.1 else [1, 1, 2, 3])
        values = [self._one(param, kind) for _ in range(count)]
        if param.get("multi") and rng.random() < 0.1:
            return "\x1f" + "\x1f".join(values)
        return "|".join(values)

    def _one(self, param: dict[str, Any], kind: Any) -> str:
        rng = self.rng
        name = param["name"]
        if isinstance(kind, list):
            if kind and rng.random() < 0.9:
                return str(rng.choice(kind))
            return rng.choice(["x", "", "*", "\x00"])
        if name == "continue" or name.endswith("continue"):
            return rng.choice(CONTINUES)
        if kind in ("integer", "limit"):
            low, high = param.get("min"), param.get("max")
            if low is not None and high is not None and rng.random() < 0.3:
                return str(rng.randint(int(low) - 1, int(high) + 1))
            return rng.choice(INTS)
        if kind == "boolean":
            return rng.choice(["1", "", "0", "false"])
        if kind == "timestamp":
            return rng.choice(TIMESTAMPS)
        if kind == "user":
            return rng.choice(USERS)
        if kind == "namespace":
            return rng.choice(["0", "1", "2", "-1", "-2", "14", "999", "x", "*"])
        if kind == "expiry":
            return rng.choice(["infinite", "1 day", "never", "2020-01-01", "x", "99999 years"])
        if name in ("title", "titles", "from", "to", "prefix", "page", "target", "fromtitle"):
            return rng.choice(TITLES)
        if name in ("text", "appendtext", "prependtext", "summary", "reason", "comment"):
            return rng.choice(["hello [[Sandbox]] {{Box}}", "", "x" * 3000, "'''b'''", "\x00"])
        return rng.choice(TITLES + USERS + INTS[:6])

    def params_of(self, module: dict[str, Any], prefix: str = "") -> dict[str, str]:
        out: dict[str, str] = {}
        params = module.get("parameters", [])
        for p in params:
            if p.get("required") or self.rng.random() < 0.3:
                out[prefix + module.get("prefix", "") + p["name"]] = self.value(p)
        return out

    def request(self) -> dict[str, str]:
        rng = self.rng
        request: dict[str, str] = {"format": "json"}
        if rng.random() < 0.05:
            request["format"] = rng.choice(["jsonfm", "xml", "php", ""])
        for key, values in MAIN_VALUES.items():
            if rng.random() < 0.06:
                request[key] = rng.choice(values)
        if rng.random() < 0.55:
            request["action"] = "query"
            for group, modules in self.query_modules.items():
                if rng.random() < 0.5:
                    chosen = rng.sample(modules, rng.choice([1, 1, 2]))
                    request[group] = "|".join(m["name"] for m in chosen)
                    for m in chosen:
                        request.update(self.params_of(m))
            generators = [m for m in self.modules.values() if m.get("generator")]
            if rng.random() < 0.3:
                gen = rng.choice(generators)
                request["generator"] = gen["name"]
                request.update(self.params_of(gen, "g"))
            if rng.random() < 0.3:
                request[rng.choice(["titles", "pageids", "revids"])] = rng.choice(
                    ["Sandbox|Fuzz page", "1|2|3", "9223372036854775808", "Deleted fuzz", ""]
                )
            for flag in ("redirects", "indexpageids", "export", "rawcontinue", "continue"):
                if rng.random() < 0.04:
                    request[flag] = rng.choice(CONTINUES) if flag == "continue" else "1"
        else:
            action = rng.choice(self.actions)
            request["action"] = action["name"]
            request.update(self.params_of(action))
        if rng.random() < 0.03:
            request["action"] = rng.choice(["", "nosuchaction", "query|edit", "\x00"])
        return request


async def _modules(wiki: WikiHarness, client: httpx.AsyncClient) -> dict[str, dict[str, Any]]:
    main = await wiki.api(client, action="paraminfo", modules="main", formatversion="2")
    actions = main["paraminfo"]["modules"][0]["parameters"][0]["type"]
    query = await wiki.api(client, action="paraminfo", modules="query", formatversion="2")
    paths = list(actions)
    for param in query["paraminfo"]["modules"][0]["parameters"]:
        if param["name"] in ("list", "prop", "meta"):
            paths += [f"query+{name}" for name in param["type"]]
    modules: dict[str, dict[str, Any]] = {}
    for i in range(0, len(paths), 50):
        info = await wiki.api(
            client, action="paraminfo", modules="|".join(paths[i : i + 50]), formatversion="2"
        )
        for module in info["paraminfo"]["modules"]:
            modules[module["path"]] = module
    assert len(modules) == len(paths) > 70
    return modules


async def _seed(wiki: WikiHarness) -> None:
    await wiki.edit_page("Sandbox", "[[Fuzz page]] {{Box}} [[Category:Things]] http://x.example/")
    await wiki.edit_page("Fuzz page", "text\n== One ==\nmore [[Sandbox]]", user="Alice")
    await wiki.edit_page("Template:Box", "<div>{{{1|box}}}</div>")
    await wiki.edit_page("Redirect fuzz", "#REDIRECT [[Sandbox]]")
    await wiki.edit_page("Deleted fuzz", "to be deleted")
    admin = wiki.client()
    await wiki.login(admin, "Admin")
    token = await wiki.csrf(admin)
    await wiki.post(admin, action="delete", title="Deleted fuzz", token=token)
    await admin.aclose()


class Session:
    """A client and, when logged in, its csrf token (fetched again after a fuzzed logout)."""

    def __init__(self, wiki: WikiHarness, user: str | None) -> None:
        self.wiki = wiki
        self.user = user
        self.client = wiki.client()
        self.token = "+\\"

    async def ensure(self) -> None:
        if self.user is None:
            return
        info = await self.wiki.api(self.client, action="query", meta="userinfo|tokens")
        if info["query"]["userinfo"].get("anon") is not None or "anon" in info["query"]["userinfo"]:
            await self.wiki.login(self.client, self.user)
            info = await self.wiki.api(self.client, action="query", meta="tokens")
        self.token = info["query"]["tokens"]["csrftoken"]


BODY_TYPES = [
    "application/x-www-form-urlencoded",
    "multipart/form-data",  # no boundary
    "multipart/form-data; boundary=zz",  # not the body's
    "text/plain",
    "application/json",
    "",
]


async def _raw_post(
    rng: random.Random, client: httpx.AsyncClient, request: dict[str, str]
) -> httpx.Response:
    """A body the form parser may refuse: invalid UTF-8 and percent escapes, a wrong or missing
    multipart boundary, another content type. The query string keeps the format."""
    body = urlencode(request).encode()
    body = rng.choice([body, body + b"&x=%FF%FE%C0", body.replace(b"=", b"=\xff", 1), b"%"])
    return await client.post(
        "/w/api.php?format=json",
        content=body,
        headers={"Content-Type": rng.choice(BODY_TYPES)},
    )


def _problem(response: httpx.Response, request: dict[str, str]) -> str | None:
    """Why this answer is not one MediaWiki could give, or None."""
    if response.status_code >= 500:
        return f"HTTP {response.status_code}"
    header = response.headers.get("MediaWiki-API-Error")
    if header is not None and "internal_api_error" in header:
        return f"internal error {header}"
    if request.get("format") != "json" or "exportnowrap" in request:  # a boolean: present
        return None
    if request.get("action") == "rsd" and response.text.startswith("<?xml"):
        return None  # ApiRsd prints its XML whatever the format, as MediaWiki's does
    if str(request.get("action", "")).startswith("feed") and response.text.startswith("<?xml"):
        # The feeds print RSS or Atom whatever the format, as MediaWiki's do; it must parse.
        try:
            ElementTree.fromstring(response.content)
        except ElementTree.ParseError as exc:
            return f"feed not XML: {exc}"
        return None
    if response.status_code == 403 and response.text.startswith("'origin'"):
        return None
    try:
        body = response.json()
    except ValueError:
        return f"not JSON: {response.text[:200]!r}"
    if request.get("action") == "opensearch" and isinstance(body, list):
        # ApiOpenSearch's own JSON: the search and three lists of equal length.
        shaped = len(body) == 4 and all(isinstance(part, list) for part in body[1:])
        if shaped and len(body[1]) == len(body[2]) == len(body[3]):
            return None
        return f"not the OpenSearch shape: {response.text[:200]!r}"
    if not isinstance(body, dict):
        return f"not an object: {response.text[:200]!r}"
    failed = "error" in body or "errors" in body
    if response.status_code >= 400 and not failed:
        return f"HTTP {response.status_code} without an error envelope"
    if failed and header is None:
        return "an error without the MediaWiki-API-Error header"
    if failed:
        codes = [body["error"]["code"]] if "error" in body else [e["code"] for e in body["errors"]]
        if any(not isinstance(code, str) or not code for code in codes):
            return f"bad error codes {codes}"
    return None


async def test_fuzz_every_module(wiki: WikiHarness, caplog: pytest.LogCaptureFixture) -> None:
    await _seed(wiki)
    sessions = [Session(wiki, None), Session(wiki, "Alice"), Session(wiki, "Admin")]
    modules = await _modules(wiki, sessions[0].client)
    fuzzer = Fuzzer(random.Random(SEED), modules)
    problems: list[str] = []
    statuses: dict[int, int] = {}
    caplog.set_level(logging.ERROR, logger="atrium")
    for n in range(REQUESTS):
        session = sessions[n % 3]
        if n % 150 < 3:
            await session.ensure()
        request = fuzzer.request()
        if (
            request.get("action") not in ("query", "paraminfo", "help")
            and fuzzer.rng.random() < 0.8
        ):
            request["token"] = session.token
        try:
            roll = fuzzer.rng.random()
            if roll < 0.03:
                response = await _raw_post(fuzzer.rng, session.client, request)
            elif roll < 0.35 and len(urlencode(request)) < 8000:  # httpx's URL limit
                response = await session.client.get("/w/api.php", params=request)
            else:
                response = await session.client.post("/w/api.php", data=request)
        except Exception as exc:  # the app raised through the transport
            problems.append(f"{type(exc).__name__}: {exc} for {json.dumps(request)[:600]}")
            continue
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
        # A mangled body may carry a bad `format`: MediaWiki then answers in jsonfm.
        problem = _problem(response, {"format": "mangled"} if roll < 0.03 else request)
        if problem is not None:
            problems.append(f"{problem} for {json.dumps(request)[:600]}")
    for s in sessions:
        await s.client.aclose()
    logged = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    print(f"wiki fuzz: {REQUESTS} requests, seed {SEED}, statuses {statuses}")
    assert problems == [], "\n".join(problems[:30])
    assert logged == [], "\n".join(logged[:30])
    assert statuses.get(200, 0) > REQUESTS * 0.9
