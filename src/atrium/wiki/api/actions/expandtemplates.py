"""`action=expandtemplates`: wikitext with its templates, parser functions and variables
expanded, in the `prop` form or, without `prop`, MediaWiki's deprecated legacy form."""

from __future__ import annotations

import re
from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import parse_title
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.params import BOOLEAN, INTEGER, TEXT, ModuleSpec, Param, enum
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import parsing

PROPS = (
    "categories",
    "encodedjsconfigvars",
    "jsconfigvars",
    "modules",
    "parsetree",
    "properties",
    "ttl",
    "volatile",
    "wikitext",
)

EXPANDTEMPLATES = ModuleSpec(
    "expandtemplates",
    "ApiExpandTemplates",
    "action",
    "",
    (
        Param("title"),
        Param("text", TEXT, required=True),
        Param("revid", INTEGER),
        Param("prop", enum(*PROPS), multi=True),
        Param("includecomments", BOOLEAN),
        Param("showstrategykeys", BOOLEAN),
        Param("generatexml", BOOLEAN, deprecated=True),
    ),
)

_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)


async def expandtemplates(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    title = parse_title(ctx, params["title"] or "API", "expandtemplates")
    variables: dict[str, str] = {"REVISIONUSER": ctx.caller.name}
    if params["revid"] is not None:
        variables["REVISIONID"] = str(params["revid"])
        revision = await ctx.db.read(parsing.revision, params["revid"])
        if revision is not None:
            variables["REVISIONUSER"] = revision.public_user
    text, _templates = await ctx.db.read_rendering(
        parsing.expand, ctx.site, title, params["text"], variables
    )
    if not params["includecomments"]:
        text = _COMMENT.sub("", text)
    props: list[str] = params["prop"]
    if not props:
        ctx.warn(
            "expandtemplates",
            "deprecation",
            msg.api("apiwarn-deprecation-missingparam", msg.plain("prop")),
        )
        ctx.params.note_deprecation()
        legacy: dict[str, Any] = {}
        ctx.out.content(legacy, "wikitext", text)
        return {"expandtemplates": legacy}
    out: dict[str, Any] = {}
    if "volatile" in props:
        ctx.out.flag(out, "volatile", False)
    if "wikitext" in props:
        out["wikitext"] = text
    if "modules" in props:
        out["modules"] = []
        out["modulescripts"] = []
        out["modulestyles"] = []
    if "jsconfigvars" in props:
        out["jsconfigvars"] = {}
    if "encodedjsconfigvars" in props:
        out["encodedjsconfigvars"] = "[]"
    return {"expandtemplates": out}


ACTIONS = (Action(EXPANDTEMPLATES, expandtemplates),)
