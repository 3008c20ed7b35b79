"""Declarations of the prop modules outside the specification that clients read pages with.

Parameters, order, defaults and markers are MediaWiki 1.39's (its paraminfo); the content formats,
groups and rights lists are the specification's, shared with the spec modules.
"""

from __future__ import annotations

import dataclasses

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
from atrium.wiki.api.querymodules import CONTENT_FORMATS, REVISION_PROPS, TRANSCLUDEDIN

CATEGORYINFO = ModuleSpec(
    "categoryinfo",
    "ApiQueryCategoryInfo",
    "prop",
    "ci",
    (Param("continue"),),
)


CONTRIBUTORS = ModuleSpec(
    "contributors",
    "ApiQueryContributors",
    "prop",
    "pc",
    (
        Param("group", EXPLICIT_GROUPS, multi=True),
        Param("excludegroup", EXPLICIT_GROUPS, multi=True),
        Param("rights", ALL_RIGHTS, multi=True),
        Param("excluderights", ALL_RIGHTS, multi=True),
        limit(default=10),
        Param("continue"),
    ),
)


DELETEDREVISIONS = ModuleSpec(
    "deletedrevisions",
    "ApiQueryDeletedRevisions",
    "prop",
    "drv",
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
        Param("start", TIMESTAMP),
        Param("end", TIMESTAMP),
        Param("dir", enum("newer", "older"), default="older"),
        Param("tag"),
        Param("user", USER, subtypes=("name", "ip", "interwiki", "id")),
        Param("excludeuser", USER, subtypes=("name", "ip", "interwiki", "id")),
        Param("continue"),
    ),
    generator=True,
)


DUPLICATEFILES = ModuleSpec(
    "duplicatefiles",
    "ApiQueryDuplicateFiles",
    "prop",
    "df",
    (
        limit(default=10),
        Param("continue"),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        Param("localonly", BOOLEAN),
    ),
    generator=True,
)


EXTLINKS = ModuleSpec(
    "extlinks",
    "ApiQueryExternalLinks",
    "prop",
    "el",
    (
        limit(default=10),
        Param("continue"),
        Param(
            "protocol",
            enum(
                "",
                "bitcoin",
                "ftp",
                "ftps",
                "geo",
                "git",
                "gopher",
                "http",
                "https",
                "irc",
                "ircs",
                "magnet",
                "mailto",
                "matrix",
                "mms",
                "news",
                "nntp",
                "redis",
                "sftp",
                "sip",
                "sips",
                "sms",
                "ssh",
                "svn",
                "tel",
                "telnet",
                "urn",
                "worldwind",
                "xmpp",
            ),
            default="",
        ),
        Param("query"),
        Param("expandurl", BOOLEAN),
    ),
)


# MediaWiki serves it with the same class and parameters as the spec's transcludedin.
FILEUSAGE = dataclasses.replace(TRANSCLUDEDIN, name="fileusage", prefix="fu")


IMAGEINFO = ModuleSpec(
    "imageinfo",
    "ApiQueryImageInfo",
    "prop",
    "ii",
    (
        Param(
            "prop",
            enum(
                "archivename",
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
                "thumbmime",
                "timestamp",
                "uploadwarning",
                "url",
                "user",
                "userid",
            ),
            default="timestamp|user",
            multi=True,
        ),
        limit(default=1),
        Param("start", TIMESTAMP),
        Param("end", TIMESTAMP),
        Param("urlwidth", INTEGER, default=-1),
        Param("urlheight", INTEGER, default=-1),
        Param("metadataversion", default="1"),
        Param("extmetadatalanguage", default="en"),
        Param("extmetadatamultilang", BOOLEAN),
        Param("extmetadatafilter", multi=True),
        Param("urlparam", default=""),
        Param("badfilecontexttitle"),
        Param("continue"),
        Param("localonly", BOOLEAN),
    ),
)


IMAGES = ModuleSpec(
    "images",
    "ApiQueryImages",
    "prop",
    "im",
    (
        limit(default=10),
        Param("continue"),
        Param("images", multi=True),
        Param("dir", enum("ascending", "descending"), default="ascending"),
    ),
    generator=True,
)


IWLINKS = ModuleSpec(
    "iwlinks",
    "ApiQueryIWLinks",
    "prop",
    "iw",
    (
        Param("prop", enum("url"), multi=True),
        Param("prefix"),
        Param("title"),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        limit(default=10),
        Param("continue"),
        Param("url", BOOLEAN, deprecated=True),
    ),
)


LANGLINKS = ModuleSpec(
    "langlinks",
    "ApiQueryLangLinks",
    "prop",
    "ll",
    (
        Param("prop", enum("autonym", "langname", "url"), multi=True),
        Param("lang"),
        Param("title"),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        Param("inlanguagecode", default="en"),
        limit(default=10),
        Param("continue"),
        Param("url", BOOLEAN, deprecated=True),
    ),
)


LINKS = ModuleSpec(
    "links",
    "ApiQueryLinks",
    "prop",
    "pl",
    (
        Param("namespace", NAMESPACE, multi=True, allspecifier="*", extranamespaces=(-2, -1)),
        limit(default=10),
        Param("continue"),
        Param("titles", multi=True),
        Param("dir", enum("ascending", "descending"), default="ascending"),
    ),
    generator=True,
)


# MediaWiki serves it with the same class and parameters as the spec's transcludedin.
LINKSHERE = dataclasses.replace(TRANSCLUDEDIN, name="linkshere", prefix="lh")


PAGEPROPS = ModuleSpec(
    "pageprops",
    "ApiQueryPageProps",
    "prop",
    "pp",
    (
        Param("continue"),
        Param("prop", multi=True),
    ),
)


PROP_MODULES: tuple[ModuleSpec, ...] = (
    CATEGORYINFO,
    CONTRIBUTORS,
    DELETEDREVISIONS,
    DUPLICATEFILES,
    EXTLINKS,
    FILEUSAGE,
    IMAGEINFO,
    IMAGES,
    IWLINKS,
    LANGLINKS,
    LINKS,
    LINKSHERE,
    PAGEPROPS,
)
