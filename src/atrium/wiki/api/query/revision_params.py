"""The revision parameters that `prop=revisions`, `list=allrevisions`, `prop=deletedrevisions` and
`list=alldeletedrevisions` share: which properties and content formats they accept."""

from __future__ import annotations

from atrium.wiki.api.params import enum

CONTENT_FORMATS = enum(
    "application/json", "text/css", "text/javascript", "text/plain", "text/x-wiki"
)
REVISION_PROPS = enum(
    "comment", "content", "contentmodel", "flags", "ids", "parsedcomment", "roles", "sha1",
    "size", "slotsha1", "slotsize", "tags", "timestamp", "user", "userid", "parsetree",
)  # fmt: skip
