"""Every `action=query` module (`prop=`, `list=`, `meta=`), each declared beside its body: this
tuple is the one list that dispatch (`RUNNABLE`), the `query` parameters and `action=paraminfo`
all read, so adding a module is its file and one line here.

Where the API specification and MediaWiki 1.39 differ, the declarations follow the specification
(the `token` parameters of revisions and users, five content formats, no watchlist `expiry`,
userinfo's deprecated `preferencestoken`, the `engineering` group, no usercontribs `iprange`).
"""

from __future__ import annotations

from atrium.wiki.api.query.list import (
    allcategories,
    alldeletedrevisions,
    allimages,
    alllinks,
    allpages,
    allusers,
    backlinks,
    blocks,
    categorymembers,
    changefeeds,
    contribs,
    exturlusage,
    filearchive,
    logevents,
    pagepropnames,
    pageswithprop,
    prefixsearch,
    protectedtitles,
    querypage,
    random,
    search,
    tags,
    users,
    watchlistraw,
)
from atrium.wiki.api.query.meta import allmessages, authmanagerinfo, siteinfo, tokens, userinfo
from atrium.wiki.api.query.pageset import QueryModule
from atrium.wiki.api.query.prop import (
    backlinksprop,
    categories,
    deletedrevisions,
    duplicatefiles,
    extlinks,
    imageinfo,
    info,
    iwlinks,
    langlinks,
    links,
    pagemeta,
    revisions,
    stashimageinfo,
)

# One line per file; a file that serves a family of modules (MediaWiki's own grouping) lists them.
MODULES: tuple[QueryModule, ...] = tuple(
    sorted(
        (
            allcategories.MODULE,
            alldeletedrevisions.MODULE,
            allimages.MODULE,
            *alllinks.MODULES,
            allmessages.MODULE,
            allpages.MODULE,
            allusers.MODULE,
            authmanagerinfo.MODULE,
            *backlinks.MODULES,
            *backlinksprop.MODULES,
            blocks.MODULE,
            categories.MODULE,
            categorymembers.MODULE,
            *changefeeds.MODULES,
            *contribs.MODULES,
            deletedrevisions.MODULE,
            duplicatefiles.MODULE,
            extlinks.MODULE,
            exturlusage.MODULE,
            filearchive.MODULE,
            imageinfo.MODULE,
            info.MODULE,
            iwlinks.MODULE,
            langlinks.MODULE,
            *links.MODULES,
            logevents.MODULE,
            *pagemeta.MODULES,
            pagepropnames.MODULE,
            pageswithprop.MODULE,
            prefixsearch.MODULE,
            protectedtitles.MODULE,
            querypage.MODULE,
            random.MODULE,
            revisions.MODULE,
            search.MODULE,
            siteinfo.MODULE,
            stashimageinfo.MODULE,
            tags.MODULE,
            tokens.MODULE,
            userinfo.MODULE,
            users.MODULE,
            watchlistraw.MODULE,
        ),
        key=lambda module: module.spec.name,
    )
)

RUNNABLE: dict[str, QueryModule] = {module.spec.name: module for module in MODULES}
