"""The list modules of issue 8 (and the ones beside them that every client uses), by name."""

from __future__ import annotations

from atrium.wiki.api.modules import backlinks, categorymembers, search
from atrium.wiki.api.querybase import QueryModule

LIST_RUNNABLE: dict[str, QueryModule] = {
    module.spec.name: module
    for module in (
        *backlinks.MODULES,
        categorymembers.MODULE,
        *search.MODULES,
    )
}
