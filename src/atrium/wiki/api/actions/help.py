"""`action=help` (ApiHelp): a module's submodules, listed as HTML."""

from __future__ import annotations

import html
from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.params import BOOLEAN, ModuleSpec, Param

HELP = ModuleSpec(
    "help",
    "ApiHelp",
    "action",
    "",
    (
        Param("modules", multi=True, default="main"),
        Param("submodules", BOOLEAN),
        Param("recursivesubmodules", BOOLEAN),
        Param("wrap", BOOLEAN),
        Param("toc", BOOLEAN),
    ),
    readrights=False,
)


async def help_page(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    items = []
    for name in params["modules"]:
        target = ctx.modules.lookup(name)
        if target is None:
            continue
        children = ctx.modules.children(target.path)
        listed = "".join(f"<li>{html.escape(c.path)}</li>" for c in children)
        items.append(f"<h2>{html.escape(target.path)}</h2><ul>{listed}</ul>")
    return {"help": {"mime": "text/html", "filename": "api-help.html", "help": "".join(items)}}


ACTION = Action(HELP, help_page)
