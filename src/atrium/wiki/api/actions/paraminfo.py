"""`action=paraminfo` (ApiParamInfo): module records rendered from the parameter declarations."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.params import BOOLEAN, ModuleSpec, Param, enum, module_info
from atrium.wiki.messages import messages as msg

PARAMINFO = ModuleSpec(
    "paraminfo",
    "ApiParamInfo",
    "action",
    "",
    (
        Param("modules", multi=True),
        Param("helpformat", enum("html", "none", "raw", "wikitext"), default="none"),
        Param("querymodules", multi=True, deprecated=True),
        Param("mainmodule", BOOLEAN, deprecated=True),
        Param("pagesetmodule", BOOLEAN, deprecated=True),
        Param("formatmodules", multi=True, deprecated=True),
    ),
)


def _expand(names: list[str], ctx: ApiContext) -> list[ModuleSpec]:
    specs: list[ModuleSpec] = []
    for name in names:
        parent, _, child = name.rpartition("+")
        parent = parent or "main"
        if child == "*":
            specs.extend(sorted(ctx.modules.children(parent), key=lambda s: s.name))
            continue
        spec = ctx.modules.lookup(name)
        if spec is None:
            ctx.warn(
                "paraminfo",
                "nosuchmodule",
                msg.api("apierror-badmodule-badsubmodule", parent, child),
            )
            continue
        specs.append(spec)
    return specs


async def paraminfo(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    names: list[str] = list(params["modules"])
    names += [f"query+{m}" for m in params["querymodules"]]
    if params["mainmodule"]:
        names.append("main")
    if params["pagesetmodule"]:
        names.append("pageset")
    names += params["formatmodules"]
    high = ctx.caller.allowed("apihighlimits")
    modules = [module_info(s, ctx.fv, high) for s in _expand(names, ctx)]
    return {"paraminfo": {"helpformat": params["helpformat"], "modules": modules}}


ACTION = Action(PARAMINFO, paraminfo)
