"""The list modules of issue 8 (and the ones beside them that every client uses), by name."""

from __future__ import annotations

from atrium.wiki.api.modules import (
    adminlists,
    backlinks,
    categorymembers,
    changefeeds,
    contribs,
    logevents,
    search,
    userlists,
)
from atrium.wiki.api.querybase import QueryModule

LIST_RUNNABLE: dict[str, QueryModule] = {
    module.spec.name: module
    for module in (
        *adminlists.MODULES,
        *backlinks.MODULES,
        categorymembers.MODULE,
        *changefeeds.MODULES,
        *contribs.MODULES,
        logevents.MODULE,
        *search.MODULES,
        *userlists.MODULES,
    )
}
