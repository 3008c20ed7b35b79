"""Query modules whose body exists, by name: the only ones `action=query` dispatches to.

One file per module or module family; each exposes `MODULE`, its declaration plus its body.
"""

from __future__ import annotations

from atrium.wiki.api.modules import (
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
