"""Query modules whose body exists, by name: the only ones `action=query` dispatches to.

One file per module or module family; each exposes `MODULE`, its declaration plus its body.
"""

from __future__ import annotations

from atrium.wiki.api.modules import (
    allmessages,
    allpages,
    authmanagerinfo,
    backlinksprop,
    categories,
    info,
    links,
    outlinks,
    pagemeta,
    revisions,
    siteinfo,
    tokens,
    userinfo,
)
from atrium.wiki.api.querybase import QueryModule

RUNNABLE: dict[str, QueryModule] = {
    module.MODULE.spec.name: module.MODULE
    for module in (
        allmessages,
        allpages,
        authmanagerinfo,
        info,
        links,
        revisions,
        siteinfo,
        tokens,
        userinfo,
    )
}

# Module families: one file serving several modules exposes `MODULES`.
for _family in (links, backlinksprop, outlinks, pagemeta):
    RUNNABLE.update({module.spec.name: module for module in _family.MODULES})
RUNNABLE[categories.MODULE.spec.name] = categories.MODULE

# issue 9: the file prop modules and deleted revisions
from atrium.wiki.api.modules import deletedrevs, files, imageinfo  # noqa: E402

RUNNABLE.update({module.spec.name: module for module in files.MODULES})
RUNNABLE[imageinfo.MODULE.spec.name] = imageinfo.MODULE
RUNNABLE[deletedrevs.MODULE.spec.name] = deletedrevs.MODULE

# issue 8: the list modules
from atrium.wiki.api.modules.lists import LIST_RUNNABLE  # noqa: E402

RUNNABLE.update(LIST_RUNNABLE)
