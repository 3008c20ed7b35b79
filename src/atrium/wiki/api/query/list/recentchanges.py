"""`list=recentchanges` (ApiQueryRecentChanges): the recent-changes journal; also a generator.

Rows come by (rc_timestamp, rc_id), newest first unless `dir=newer`; the continue value is
`<timestamp>|<rc_id>`, as MediaWiki's. Fields appear in ApiQueryRecentChanges::extractRowInfo's
order.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Row
from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    BOOLEAN,
    NAMESPACE,
    TIMESTAMP,
    USER,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.journal import (
    DELETED_RESTRICTED,
    DELETED_TEXT,
    RC_TYPE_NAMES,
    RECENTCHANGES_FIELDS,
    RECENTCHANGES_KEYS,
    RECENTCHANGES_KINDS,
    Walk,
    add_comment,
    add_user,
    can_see,
    change_flags_sizes_time,
    change_loginfo,
    change_patrol_flags,
    change_tags,
    change_title_ids,
    check_show,
    may_patrol,
    patrolflag_denied,
    recentchanges_filters,
    recentchanges_select,
    recentchanges_show,
    sha1_hex,
)
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun
from atrium.wiki.messages import messages as msg
from atrium.wiki.titles import InvalidTitle

RC = schema.recentchanges
P = schema.page

_PAIRS = (
    ("minor", "!minor"),
    ("bot", "!bot"),
    ("anon", "!anon"),
    ("redirect", "!redirect"),
    ("patrolled", "!patrolled"),
    ("patrolled", "unpatrolled"),
    ("autopatrolled", "!autopatrolled"),
    ("autopatrolled", "unpatrolled"),
    ("autopatrolled", "!patrolled"),
)
_PATROL_SHOW = {"patrolled", "!patrolled", "unpatrolled", "autopatrolled", "!autopatrolled"}


RECENTCHANGES = ModuleSpec(
    "recentchanges",
    "ApiQueryRecentChanges",
    "list",
    "rc",
    (
        Param("start", TIMESTAMP),
        Param("end", TIMESTAMP),
        Param("dir", enum("newer", "older"), default="older"),
        Param(
            "namespace",
            NAMESPACE,
            multi=True,
            allspecifier="*",
            extranamespaces=(
                -2,
                -1,
            ),
        ),
        Param(
            "user",
            USER,
            subtypes=(
                "name",
                "ip",
                "interwiki",
                "id",
            ),
        ),
        Param(
            "excludeuser",
            USER,
            subtypes=(
                "name",
                "ip",
                "interwiki",
                "id",
            ),
        ),
        Param("tag"),
        Param(
            "prop",
            enum(
                "comment",
                "flags",
                "ids",
                "loginfo",
                "parsedcomment",
                "patrolled",
                "redirect",
                "sha1",
                "sizes",
                "tags",
                "timestamp",
                "title",
                "user",
                "userid",
            ),
            default="title|timestamp|ids",
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
                "!redirect",
                "anon",
                "autopatrolled",
                "bot",
                "minor",
                "patrolled",
                "redirect",
                "unpatrolled",
            ),
            multi=True,
        ),
        limit(),
        Param(
            "type",
            enum("categorize", "edit", "external", "log", "new"),
            default="edit|new|log|categorize",
            multi=True,
        ),
        Param("toponly", BOOLEAN),
        Param("title"),
        Param("continue"),
        Param("generaterevisions", BOOLEAN),
        Param("slot", enum("main")),
    ),
    generator=True,
)


async def _rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    spec = RECENTCHANGES
    show = set(params["show"] or ())
    check_show(spec, params["show"] or (), _PAIRS)
    if show & _PATROL_SHOW and not may_patrol(q):
        raise patrolflag_denied(spec)
    if "patrolled" in params["prop"] and not may_patrol(q):
        raise patrolflag_denied(spec)
    walk = Walk.of(params)
    query = recentchanges_filters(q, spec, params, walk, recentchanges_select())
    query = recentchanges_show(query, show)
    if params["title"] is not None:
        try:
            title = q.ctx.site.parser.parse(params["title"])
        except InvalidTitle as exc:
            raise ApiUsageError(
                "invalidtitle",
                msg.api("apierror-invalidtitle", msg.escape_wikitext(params["title"])),
                module=spec.path,
            ) from exc
        query = query.where(RC.c.rc_namespace == title.ns, RC.c.rc_title == title.dbkey)
    if params["toponly"]:
        query = query.where(RC.c.rc_this_oldid == P.c.page_latest)
    cte = schema.change_tag_event
    return await walk.page(
        q,
        query,
        RECENTCHANGES_KEYS,
        RECENTCHANGES_KINDS,
        RECENTCHANGES_FIELDS,
        tag=params["tag"],
        tagged=lambda tid: sa.exists().where(
            cte.c.cte_rc_id == RC.c.rc_id, cte.c.cte_tag_id == tid
        ),
    )


def _entry(q: QueryRun, row: Row, props: set[str], tags: dict[int, list[str]]) -> dict[str, Any]:
    """ApiQueryRecentChanges::extractRowInfo."""
    out = q.ctx.out
    rc_type = int(row["rc_type"])
    deleted = int(row["rc_deleted"] or 0)
    entry: dict[str, Any] = {"type": RC_TYPE_NAMES.get(rc_type, "edit")}
    hidden = change_title_ids(q, entry, row, props)
    if "ids" in props:
        entry["rcid"] = int(row["rc_id"])
    hidden |= add_user(q, entry, row, deleted, "user" in props, "userid" in props)
    change_flags_sizes_time(q, entry, row, props)
    hidden |= add_comment(
        q, entry, row["comment_text"], deleted, "comment" in props, "parsedcomment" in props
    )
    if "redirect" in props:
        out.flag(entry, "redirect", bool(row["page_is_redirect"]))
    if "patrolled" in props:
        change_patrol_flags(q, entry, row)
    if "loginfo" in props and rc_type == 3:
        hidden |= change_loginfo(q, entry, row)
    if "tags" in props:
        entry["tags"] = tags.get(int(row["rc_id"]), [])
    if "sha1" in props and row["rev_sha1"] is not None:
        rev_deleted = int(row["rev_deleted"] or 0)
        if rev_deleted & DELETED_TEXT:
            out.flag_if(entry, "sha1hidden", True)
            hidden = True
        if can_see(q, rev_deleted, DELETED_TEXT):
            entry["sha1"] = sha1_hex(str(row["rev_sha1"]))
    if hidden and deleted & DELETED_RESTRICTED:
        out.flag_if(entry, "suppressed", True)
    return entry


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _rows(q, params)
    props = set(params["prop"])
    tags = await change_tags(q, rows, props)
    q.data["recentchanges"] = [_entry(q, row, props, tags) for row in rows]
    if cont is not None:
        q.continuation.add(RECENTCHANGES, "continue", cont)


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _rows(q, params)
    if cont is not None:
        q.continuation.add_generator(RECENTCHANGES, "continue", cont)
    if params["generaterevisions"]:
        return GeneratedPages(
            revids=[int(r["rc_this_oldid"]) for r in rows if int(r["rc_this_oldid"]) > 0]
        )
    titles = [(int(r["rc_namespace"]), str(r["rc_title"])) for r in rows]
    return GeneratedPages(titles=list(dict.fromkeys(titles)))


MODULE = QueryModule(RECENTCHANGES, run, generate)
