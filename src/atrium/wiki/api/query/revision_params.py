"""The revision parameters that `prop=revisions`, `list=allrevisions`, `prop=deletedrevisions` and
`list=alldeletedrevisions` share (MediaWiki's ApiQueryRevisionsBase): which properties and content
formats they accept, and the deprecated content options."""

from __future__ import annotations

from atrium.wiki.api.params import BOOLEAN, Param, enum, limit

CONTENT_FORMATS = enum(
    "application/json", "text/css", "text/javascript", "text/plain", "text/x-wiki"
)
REVISION_PROPS = enum(
    "comment", "content", "contentmodel", "flags", "ids", "parsedcomment", "roles", "sha1",
    "size", "slotsha1", "slotsize", "tags", "timestamp", "user", "userid", "parsetree",
)  # fmt: skip


def revision_params(
    *, limit_info: tuple[tuple[str, tuple[int, ...] | None], ...] | None = None
) -> tuple[Param, ...]:
    """The parameters every revision module starts with, in MediaWiki's order; `limit_info` is the
    paraminfo note on `limit` (`singlepageonly` for `prop=revisions`)."""
    lim = limit(default=None) if limit_info is None else limit(default=None, info=limit_info)
    return (
        Param(
            "prop",
            REVISION_PROPS,
            default="ids|timestamp|flags|comment|user",
            multi=True,
            deprecatedvalues=("parsetree",),
        ),
        Param("slots", enum("main"), multi=True, allspecifier="*"),
        lim,
        Param("expandtemplates", BOOLEAN, deprecated=True),
        Param("generatexml", BOOLEAN, deprecated=True),
        Param("parse", BOOLEAN, deprecated=True),
        Param("section"),
        Param("diffto", deprecated=True),
        Param("difftotext", deprecated=True),
        Param("difftotextpst", BOOLEAN, deprecated=True),
        Param("contentformat", CONTENT_FORMATS, deprecated=True),
    )
