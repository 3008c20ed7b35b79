"""`meta=tokens`: the tokens of the caller's session (anonymous callers get `+\\` for most types)."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.params import (
    ModuleSpec,
    Param,
    enum,
)
from atrium.wiki.api.query.pageset import QueryModule, QueryRun
from atrium.wiki.changes.sessions import create_session
from atrium.wiki.reads.sessions import ANON_TOKEN, SESSION_BOUND_TYPES, TOKEN_SALTS, make_token


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    ctx = q.ctx
    types: list[str] = params["type"]
    anonymous = not ctx.caller.registered
    needs_session = any(t in SESSION_BOUND_TYPES for t in types) or not anonymous
    if needs_session and ctx.session_secret is None:
        ctx.new_session = await ctx.db.write(create_session, None, None)
    secret = ctx.session_secret
    tokens: dict[str, str] = {}
    for kind in sorted(types):
        if anonymous and kind not in SESSION_BOUND_TYPES:
            tokens[f"{kind}token"] = ANON_TOKEN
        else:
            assert secret is not None
            tokens[f"{kind}token"] = make_token(secret, TOKEN_SALTS[kind])
    q.data["tokens"] = tokens


TOKENS = ModuleSpec(
    "tokens",
    "ApiQueryTokens",
    "meta",
    "",
    (
        Param(
            "type",
            enum("createaccount", "csrf", "login", "patrol", "rollback", "userrights", "watch"),
            default="csrf",
            multi=True,
            allspecifier="*",
        ),
    ),
    readrights=False,
)


MODULE = QueryModule(TOKENS, run)
