"""Parameter declarations of the query modules (`list=`, `meta=`, `prop=`), one record each.

These are data: `action=paraminfo` renders them for every module listed here, while `action=query`
dispatches only to modules whose body is registered in `atrium.wiki.api.query`. Where the
specification and MediaWiki 1.39 differ, the specification is followed (the `token` parameters of
revisions and users, five content formats, no watchlist `expiry`, userinfo's deprecated
`preferencestoken`, the `engineering` group, no usercontribs `iprange`).
"""

from __future__ import annotations

from atrium.wiki.accounts.rights import ALL_RIGHTS, EXPLICIT_GROUPS
from atrium.wiki.api.params import (
    BOOLEAN,
    INTEGER,
    NAMESPACE,
    TIMESTAMP,
    USER,
    ModuleSpec,
    Param,
    enum,
    limit,
)

CONTENT_FORMATS = enum(
    "application/json", "text/css", "text/javascript", "text/plain", "text/x-wiki"
)
REVISION_PROPS = enum(
    "comment", "content", "contentmodel", "flags", "ids", "parsedcomment", "roles", "sha1",
    "size", "slotsha1", "slotsize", "tags", "timestamp", "user", "userid", "parsetree",
)  # fmt: skip


ALLCATEGORIES = ModuleSpec(
    "allcategories",
    "ApiQueryAllCategories",
    "list",
    "ac",
    (
        Param("from"),
        Param("continue"),
        Param("to"),
        Param("prefix"),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        Param("min", INTEGER),
        Param("max", INTEGER),
        limit(default=10),
        Param("prop", enum("hidden", "size"), default="", multi=True),
    ),
    generator=True,
)


ALLDELETEDREVISIONS = ModuleSpec(
    "alldeletedrevisions",
    "ApiQueryAllDeletedRevisions",
    "list",
    "adr",
    (
        Param(
            "prop",
            REVISION_PROPS,
            default="ids|timestamp|flags|comment|user",
            multi=True,
            deprecatedvalues=("parsetree",),
        ),
        Param("slots", enum("main"), multi=True, allspecifier="*"),
        limit(default=None),
        Param("expandtemplates", BOOLEAN, deprecated=True),
        Param("generatexml", BOOLEAN, deprecated=True),
        Param("parse", BOOLEAN, deprecated=True),
        Param("section"),
        Param("diffto", deprecated=True),
        Param("difftotext", deprecated=True),
        Param("difftotextpst", BOOLEAN, deprecated=True),
        Param("contentformat", CONTENT_FORMATS, deprecated=True),
        Param("user", USER, subtypes=("name", "ip", "interwiki", "id")),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        Param("start", TIMESTAMP, info=(("useronly", None),)),
        Param("end", TIMESTAMP, info=(("useronly", None),)),
        Param("dir", enum("newer", "older"), default="older"),
        Param("from", info=(("nonuseronly", None),)),
        Param("to", info=(("nonuseronly", None),)),
        Param("prefix", info=(("nonuseronly", None),)),
        Param(
            "excludeuser",
            USER,
            subtypes=("name", "ip", "interwiki", "id"),
            info=(("nonuseronly", None),),
        ),
        Param("tag"),
        Param("continue"),
        Param("generatetitles", BOOLEAN),
    ),
    generator=True,
)


ALLFILEUSAGES = ModuleSpec(
    "allfileusages",
    "ApiQueryAllLinks",
    "list",
    "af",
    (
        Param("continue"),
        Param("from"),
        Param("to"),
        Param("prefix"),
        Param("unique", BOOLEAN),
        Param("prop", enum("ids", "title"), default="title", multi=True),
        limit(default=10),
        Param("dir", enum("ascending", "descending"), default="ascending"),
    ),
    generator=True,
)


ALLIMAGES = ModuleSpec(
    "allimages",
    "ApiQueryAllImages",
    "list",
    "ai",
    (
        Param("sort", enum("name", "timestamp"), default="name"),
        Param("dir", enum("ascending", "descending", "newer", "older"), default="ascending"),
        Param("from"),
        Param("to"),
        Param("continue"),
        Param("start", TIMESTAMP),
        Param("end", TIMESTAMP),
        Param(
            "prop",
            enum(
                "badfile",
                "bitdepth",
                "canonicaltitle",
                "comment",
                "commonmetadata",
                "dimensions",
                "extmetadata",
                "mediatype",
                "metadata",
                "mime",
                "parsedcomment",
                "sha1",
                "size",
                "timestamp",
                "url",
                "user",
                "userid",
            ),
            default="timestamp|url",
            multi=True,
        ),
        Param("prefix"),
        Param("minsize", INTEGER),
        Param("maxsize", INTEGER),
        Param("sha1"),
        Param("sha1base36"),
        Param("user", USER, subtypes=("name", "ip", "interwiki", "id")),
        Param("filterbots", enum("all", "bots", "nobots"), default="all"),
        Param("mime", multi=True),
        limit(default=10),
    ),
    generator=True,
)


ALLLINKS = ModuleSpec(
    "alllinks",
    "ApiQueryAllLinks",
    "list",
    "al",
    (
        Param("continue"),
        Param("from"),
        Param("to"),
        Param("prefix"),
        Param("unique", BOOLEAN),
        Param("prop", enum("ids", "title"), default="title", multi=True),
        Param("namespace", NAMESPACE, default=0, extranamespaces=(-2, -1)),
        limit(default=10),
        Param("dir", enum("ascending", "descending"), default="ascending"),
    ),
    generator=True,
)


ALLMESSAGES = ModuleSpec(
    "allmessages",
    "ApiQueryAllMessages",
    "meta",
    "am",
    (
        Param("messages", default="*", multi=True),
        Param("prop", enum("default"), multi=True),
        Param("enableparser", BOOLEAN),
        Param("nocontent", BOOLEAN),
        Param("includelocal", BOOLEAN),
        Param("args", multi=True, allowsduplicates=True),
        Param("filter"),
        Param("customised", enum("all", "modified", "unmodified"), default="all"),
        Param("lang"),
        Param("from"),
        Param("to"),
        Param("title"),
        Param("prefix"),
    ),
)


ALLPAGES = ModuleSpec(
    "allpages",
    "ApiQueryAllPages",
    "list",
    "ap",
    (
        Param("from"),
        Param("continue"),
        Param("to"),
        Param("prefix"),
        Param("namespace", NAMESPACE, default=0),
        Param("filterredir", enum("all", "redirects", "nonredirects"), default="all"),
        Param("minsize", INTEGER),
        Param("maxsize", INTEGER),
        Param("prtype", enum("edit", "move", "upload"), multi=True),
        Param("prlevel", enum("", "autoconfirmed", "sysop"), multi=True),
        Param("prfiltercascade", enum("all", "cascading", "noncascading"), default="all"),
        limit(default=10),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        Param("filterlanglinks", enum("all", "withlanglinks", "withoutlanglinks"), default="all"),
        Param("prexpiry", enum("all", "definite", "indefinite"), default="all"),
    ),
    generator=True,
)


ALLREDIRECTS = ModuleSpec(
    "allredirects",
    "ApiQueryAllLinks",
    "list",
    "ar",
    (
        Param("continue"),
        Param("from"),
        Param("to"),
        Param("prefix"),
        Param("unique", BOOLEAN),
        Param("prop", enum("fragment", "ids", "interwiki", "title"), default="title", multi=True),
        Param("namespace", NAMESPACE, default=0, extranamespaces=(-2, -1)),
        limit(default=10),
        Param("dir", enum("ascending", "descending"), default="ascending"),
    ),
    generator=True,
)


ALLREVISIONS = ModuleSpec(
    "allrevisions",
    "ApiQueryAllRevisions",
    "list",
    "arv",
    (
        Param(
            "prop",
            REVISION_PROPS,
            default="ids|timestamp|flags|comment|user",
            multi=True,
            deprecatedvalues=("parsetree",),
        ),
        Param("slots", enum("main"), multi=True, allspecifier="*"),
        limit(default=None),
        Param("expandtemplates", BOOLEAN, deprecated=True),
        Param("generatexml", BOOLEAN, deprecated=True),
        Param("parse", BOOLEAN, deprecated=True),
        Param("section"),
        Param("diffto", deprecated=True),
        Param("difftotext", deprecated=True),
        Param("difftotextpst", BOOLEAN, deprecated=True),
        Param("contentformat", CONTENT_FORMATS, deprecated=True),
        Param("user", USER, subtypes=("name", "ip", "interwiki", "id")),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        Param("start", TIMESTAMP),
        Param("end", TIMESTAMP),
        Param("dir", enum("newer", "older"), default="older"),
        Param("excludeuser", USER, subtypes=("name", "ip", "interwiki", "id")),
        Param("continue"),
        Param("generatetitles", BOOLEAN),
    ),
    generator=True,
)


ALLTRANSCLUSIONS = ModuleSpec(
    "alltransclusions",
    "ApiQueryAllLinks",
    "list",
    "at",
    (
        Param("continue"),
        Param("from"),
        Param("to"),
        Param("prefix"),
        Param("unique", BOOLEAN),
        Param("prop", enum("ids", "title"), default="title", multi=True),
        Param("namespace", NAMESPACE, default=10, extranamespaces=(-2, -1)),
        limit(default=10),
        Param("dir", enum("ascending", "descending"), default="ascending"),
    ),
    generator=True,
)


ALLUSERS = ModuleSpec(
    "allusers",
    "ApiQueryAllUsers",
    "list",
    "au",
    (
        Param("from"),
        Param("to"),
        Param("prefix"),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        Param("group", EXPLICIT_GROUPS, multi=True),
        Param("excludegroup", EXPLICIT_GROUPS, multi=True),
        Param("rights", ALL_RIGHTS, multi=True),
        Param(
            "prop",
            enum(
                "blockinfo",
                "centralids",
                "editcount",
                "groups",
                "implicitgroups",
                "registration",
                "rights",
            ),
            multi=True,
        ),
        limit(default=10),
        Param("witheditsonly", BOOLEAN),
        Param("activeusers", BOOLEAN),
        Param("attachedwiki"),
    ),
)


AUTHMANAGERINFO = ModuleSpec(
    "authmanagerinfo",
    "ApiQueryAuthManagerInfo",
    "meta",
    "ami",
    (
        Param("securitysensitiveoperation"),
        Param(
            "requestsfor",
            enum(
                "change",
                "create",
                "create-continue",
                "link",
                "link-continue",
                "login",
                "login-continue",
                "remove",
                "unlink",
            ),
        ),
        Param("mergerequestfields", BOOLEAN),
        Param("messageformat", enum("html", "none", "raw", "wikitext"), default="wikitext"),
    ),
    readrights=False,
)


BACKLINKS = ModuleSpec(
    "backlinks",
    "ApiQueryBacklinks",
    "list",
    "bl",
    (
        Param("title"),
        Param("pageid", INTEGER),
        Param("continue"),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        Param("filterredir", enum("all", "nonredirects", "redirects"), default="all"),
        limit(default=10),
        Param("redirect", BOOLEAN),
    ),
    generator=True,
)


BLOCKS = ModuleSpec(
    "blocks",
    "ApiQueryBlocks",
    "list",
    "bk",
    (
        Param("start", TIMESTAMP),
        Param("end", TIMESTAMP),
        Param("dir", enum("newer", "older"), default="older"),
        Param("ids", INTEGER, multi=True),
        Param("users", USER, multi=True, subtypes=("name", "ip", "cidr")),
        Param("ip"),
        limit(default=10),
        Param(
            "prop",
            enum(
                "by",
                "byid",
                "expiry",
                "flags",
                "id",
                "range",
                "reason",
                "restrictions",
                "timestamp",
                "user",
                "userid",
            ),
            default="id|user|by|timestamp|expiry|reason|flags",
            multi=True,
        ),
        Param(
            "show",
            enum("!account", "!ip", "!range", "!temp", "account", "ip", "range", "temp"),
            multi=True,
        ),
        Param("continue"),
    ),
)


CATEGORIES = ModuleSpec(
    "categories",
    "ApiQueryCategories",
    "prop",
    "cl",
    (
        Param("prop", enum("hidden", "sortkey", "timestamp"), multi=True),
        Param("show", enum("!hidden", "hidden"), multi=True),
        limit(default=10),
        Param("continue"),
        Param("categories", multi=True),
        Param("dir", enum("ascending", "descending"), default="ascending"),
    ),
    generator=True,
)


REDIRECTS = ModuleSpec(
    "redirects",
    "ApiQueryBacklinksprop",
    "prop",
    "rd",
    (
        Param("prop", enum("fragment", "pageid", "title"), default="pageid|title", multi=True),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        Param("show", enum("!fragment", "fragment"), multi=True),
        limit(default=10),
        Param("continue"),
    ),
    generator=True,
)


REVISIONS = ModuleSpec(
    "revisions",
    "ApiQueryRevisions",
    "prop",
    "rv",
    (
        Param(
            "prop",
            REVISION_PROPS,
            default="ids|timestamp|flags|comment|user",
            multi=True,
            deprecatedvalues=("parsetree",),
        ),
        Param("slots", enum("main"), multi=True, allspecifier="*"),
        limit(default=None, info=(("singlepageonly", None),)),
        Param("expandtemplates", BOOLEAN, deprecated=True),
        Param("generatexml", BOOLEAN, deprecated=True),
        Param("parse", BOOLEAN, deprecated=True),
        Param("section"),
        Param("diffto", deprecated=True),
        Param("difftotext", deprecated=True),
        Param("difftotextpst", BOOLEAN, deprecated=True),
        Param("contentformat", CONTENT_FORMATS, deprecated=True),
        Param("startid", INTEGER, info=(("singlepageonly", None),)),
        Param("endid", INTEGER, info=(("singlepageonly", None),)),
        Param("start", TIMESTAMP, info=(("singlepageonly", None),)),
        Param("end", TIMESTAMP, info=(("singlepageonly", None),)),
        Param("dir", enum("newer", "older"), default="older", info=(("singlepageonly", None),)),
        Param(
            "user",
            USER,
            subtypes=("name", "ip", "interwiki", "id"),
            info=(("singlepageonly", None),),
        ),
        Param(
            "excludeuser",
            USER,
            subtypes=("name", "ip", "interwiki", "id"),
            info=(("singlepageonly", None),),
        ),
        Param("tag"),
        Param("token", enum("rollback"), multi=True, deprecated=True),
        Param("continue"),
    ),
    generator=True,
)


SEARCH = ModuleSpec(
    "search",
    "ApiQuerySearch",
    "list",
    "sr",
    (
        Param("search", required=True),
        Param("namespace", NAMESPACE, default=0, multi=True, allspecifier="*"),
        limit(default=10),
        Param("offset", INTEGER, default=0),
        Param("what", enum("nearmatch", "text", "title")),
        Param(
            "info",
            enum("rewrittenquery", "suggestion", "totalhits"),
            default="totalhits|suggestion|rewrittenquery",
            multi=True,
        ),
        Param(
            "prop",
            enum(
                "categorysnippet",
                "extensiondata",
                "isfilematch",
                "redirectsnippet",
                "redirecttitle",
                "sectionsnippet",
                "sectiontitle",
                "size",
                "snippet",
                "timestamp",
                "titlesnippet",
                "wordcount",
                "hasrelated",
                "score",
            ),
            default="size|wordcount|timestamp|snippet",
            multi=True,
            deprecatedvalues=("hasrelated", "score"),
        ),
        Param("interwiki", BOOLEAN),
        Param("enablerewrites", BOOLEAN),
        Param("sort", enum("relevance"), default="relevance"),
    ),
    generator=True,
)


SITEINFO = ModuleSpec(
    "siteinfo",
    "ApiQuerySiteinfo",
    "meta",
    "si",
    (
        Param(
            "prop",
            enum(
                "dbrepllag",
                "defaultoptions",
                "extensions",
                "extensiontags",
                "fileextensions",
                "functionhooks",
                "general",
                "interwikimap",
                "languages",
                "languagevariants",
                "libraries",
                "magicwords",
                "namespacealiases",
                "namespaces",
                "protocols",
                "restrictions",
                "rightsinfo",
                "showhooks",
                "skins",
                "specialpagealiases",
                "statistics",
                "uploaddialog",
                "usergroups",
                "variables",
            ),
            default="general",
            multi=True,
        ),
        Param("filteriw", enum("!local", "local")),
        Param("showalldb", BOOLEAN),
        Param("numberingroup", BOOLEAN),
        Param("inlanguagecode"),
    ),
)


STASHIMAGEINFO = ModuleSpec(
    "stashimageinfo",
    "ApiQueryStashImageInfo",
    "prop",
    "sii",
    (
        Param("filekey", multi=True),
        Param("sessionkey", multi=True, deprecated=True),
        Param(
            "prop",
            enum(
                "badfile",
                "bitdepth",
                "canonicaltitle",
                "commonmetadata",
                "dimensions",
                "extmetadata",
                "metadata",
                "mime",
                "sha1",
                "size",
                "thumbmime",
                "timestamp",
                "url",
            ),
            default="timestamp|url",
            multi=True,
        ),
        Param("urlwidth", INTEGER, default=-1),
        Param("urlheight", INTEGER, default=-1),
        Param("urlparam", default=""),
    ),
)


TAGS = ModuleSpec(
    "tags",
    "ApiQueryTags",
    "list",
    "tg",
    (
        Param("continue"),
        limit(default=10),
        Param(
            "prop",
            enum("active", "defined", "description", "displayname", "hitcount", "source"),
            default="",
            multi=True,
        ),
    ),
)


TEMPLATES = ModuleSpec(
    "templates",
    "ApiQueryLinks",
    "prop",
    "tl",
    (
        Param("namespace", NAMESPACE, multi=True, allspecifier="*", extranamespaces=(-2, -1)),
        limit(default=10),
        Param("continue"),
        Param("templates", multi=True),
        Param("dir", enum("ascending", "descending"), default="ascending"),
    ),
    generator=True,
)


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


TRANSCLUDEDIN = ModuleSpec(
    "transcludedin",
    "ApiQueryBacklinksprop",
    "prop",
    "ti",
    (
        Param(
            "prop", enum("pageid", "redirect", "title"), default="pageid|title|redirect", multi=True
        ),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        Param("show", enum("!redirect", "redirect"), multi=True),
        limit(default=10),
        Param("continue"),
    ),
    generator=True,
)


USERCONTRIBS = ModuleSpec(
    "usercontribs",
    "ApiQueryUserContribs",
    "list",
    "uc",
    (
        limit(default=10),
        Param("start", TIMESTAMP),
        Param("end", TIMESTAMP),
        Param("continue"),
        Param("user", USER, multi=True, subtypes=("name", "ip", "interwiki")),
        Param("userids", INTEGER, multi=True),
        Param("userprefix"),
        Param("dir", enum("newer", "older"), default="older"),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        Param(
            "prop",
            enum(
                "comment",
                "flags",
                "ids",
                "parsedcomment",
                "patrolled",
                "size",
                "sizediff",
                "tags",
                "timestamp",
                "title",
            ),
            default="ids|title|timestamp|comment|size|flags",
            multi=True,
        ),
        Param(
            "show",
            enum(
                "!autopatrolled",
                "!minor",
                "!new",
                "!patrolled",
                "!top",
                "autopatrolled",
                "minor",
                "new",
                "patrolled",
                "top",
            ),
            multi=True,
        ),
        Param("tag"),
        Param("toponly", BOOLEAN, deprecated=True),
    ),
)


USERINFO = ModuleSpec(
    "userinfo",
    "ApiQueryUserInfo",
    "meta",
    "ui",
    (
        Param(
            "prop",
            enum(
                "acceptlang",
                "blockinfo",
                "centralids",
                "changeablegroups",
                "editcount",
                "email",
                "groupmemberships",
                "groups",
                "hasmsg",
                "implicitgroups",
                "latestcontrib",
                "options",
                "ratelimits",
                "realname",
                "registrationdate",
                "rights",
                "unreadcount",
                "preferencestoken",
            ),
            multi=True,
            allspecifier="*",
            deprecatedvalues=("preferencestoken",),
        ),
        Param("attachedwiki"),
    ),
)


USERS = ModuleSpec(
    "users",
    "ApiQueryUsers",
    "list",
    "us",
    (
        Param(
            "prop",
            enum(
                "blockinfo",
                "cancreate",
                "centralids",
                "editcount",
                "emailable",
                "gender",
                "groupmemberships",
                "groups",
                "implicitgroups",
                "registration",
                "rights",
            ),
            multi=True,
        ),
        Param("attachedwiki"),
        Param("users", multi=True),
        Param("userids", INTEGER, multi=True),
        Param("token", enum("userrights"), multi=True, deprecated=True),
    ),
)


WATCHLIST = ModuleSpec(
    "watchlist",
    "ApiQueryWatchlist",
    "list",
    "wl",
    (
        Param("allrev", BOOLEAN),
        Param("start", TIMESTAMP),
        Param("end", TIMESTAMP),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        Param("user", USER, subtypes=("name", "ip", "interwiki", "id")),
        Param("excludeuser", USER, subtypes=("name", "ip", "interwiki", "id")),
        Param("dir", enum("newer", "older"), default="older"),
        limit(default=10),
        Param(
            "prop",
            enum(
                "comment",
                "flags",
                "ids",
                "loginfo",
                "notificationtimestamp",
                "parsedcomment",
                "patrol",
                "sizes",
                "tags",
                "timestamp",
                "title",
                "user",
                "userid",
            ),
            default="ids|title|flags",
            multi=True,
        ),
        Param(
            "show",
            enum(
                "!anon",
                "!autopatrolled",
                "!bot",
                "!minor",
                "!patrolled",
                "!unread",
                "anon",
                "autopatrolled",
                "bot",
                "minor",
                "patrolled",
                "unread",
            ),
            multi=True,
        ),
        Param(
            "type",
            enum("categorize", "edit", "external", "log", "new"),
            default="edit|new|log|categorize",
            multi=True,
        ),
        Param("owner", USER, subtypes=("name",)),
        Param("token", sensitive=True),
        Param("continue"),
    ),
    generator=True,
)


WATCHLISTRAW = ModuleSpec(
    "watchlistraw",
    "ApiQueryWatchlistRaw",
    "list",
    "wr",
    (
        Param("continue"),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        limit(default=10),
        Param("prop", enum("changed"), multi=True),
        Param("show", enum("!changed", "changed"), multi=True),
        Param("owner", USER, subtypes=("name",)),
        Param("token", sensitive=True),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        Param("fromtitle"),
        Param("totitle"),
    ),
    generator=True,
)


SPEC_MODULES: tuple[ModuleSpec, ...] = (
    ALLCATEGORIES,
    ALLDELETEDREVISIONS,
    ALLFILEUSAGES,
    ALLIMAGES,
    ALLLINKS,
    ALLMESSAGES,
    ALLPAGES,
    ALLREDIRECTS,
    ALLREVISIONS,
    ALLTRANSCLUSIONS,
    ALLUSERS,
    AUTHMANAGERINFO,
    BACKLINKS,
    BLOCKS,
    CATEGORIES,
    REDIRECTS,
    REVISIONS,
    SEARCH,
    SITEINFO,
    STASHIMAGEINFO,
    TAGS,
    TEMPLATES,
    TOKENS,
    TRANSCLUDEDIN,
    USERCONTRIBS,
    USERINFO,
    USERS,
    WATCHLIST,
    WATCHLISTRAW,
)


# Modules outside the specification that clients need to read pages back.
INFO = ModuleSpec(
    "info",
    "ApiQueryInfo",
    "prop",
    "in",
    (
        Param(
            "prop",
            enum(
                "associatedpage",
                "displaytitle",
                "linkclasses",
                "notificationtimestamp",
                "preload",
                "protection",
                "subjectid",
                "talkid",
                "url",
                "varianttitles",
                "visitingwatchers",
                "watched",
                "watchers",
                "readable",
            ),
            multi=True,
            deprecatedvalues=("readable",),
        ),
        Param("linkcontext", "title", default="Main Page"),
        Param("testactions", multi=True),
        Param("testactionsdetail", enum("boolean", "full", "quick"), default="boolean"),
        Param("continue"),
    ),
)

EXTRA_MODULES: tuple[ModuleSpec, ...] = (INFO,)
