"""The list modules of issue 8 (and the ones beside them that every client uses), by name."""

from __future__ import annotations

from atrium.wiki.api.modules import (
    adminlists,
    alllinks,
    backlinks,
    categorymembers,
    changefeeds,
    contribs,
    deletedlist,
    filelists,
    logevents,
    pagelists,
    querypage,
    search,
    userlists,
)
from atrium.wiki.api.querybase import QueryModule

LIST_RUNNABLE: dict[str, QueryModule] = {
    module.spec.name: module
    for module in (
        *adminlists.MODULES,
        *alllinks.MODULES,
        *backlinks.MODULES,
        categorymembers.MODULE,
        *changefeeds.MODULES,
        *contribs.MODULES,
        deletedlist.MODULE,
        *filelists.MODULES,
        logevents.MODULE,
        *pagelists.MODULES,
        querypage.MODULE,
        *search.MODULES,
        *userlists.MODULES,
    )
}
