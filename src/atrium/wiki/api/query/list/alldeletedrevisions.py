"""`list=alldeletedrevisions`: the archive (revisions of deleted pages), as
ApiQueryAllDeletedRevisions.

Two modes: with `user`, that user's deleted revisions by (ar_timestamp, ar_id), continue
`<timestamp>|<ar_id>`, and `start`/`end`; without, every deleted revision by (namespace, title,
timestamp, ar_id), continue `<ns>|<title>|<timestamp>|<ar_id>`, and `from`/`to`/`prefix`/
`excludeuser`. As a generator: the revision ids, or with `generatetitles` the titles (distinct
titles continued by `<ns>|<title>` when walking `newer`). Comments need `deletedhistory`, content
`deletedtext` (or `undelete`); hidden fields follow each revision's `ar_deleted` bits.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
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
)
from atrium.wiki.api.query.journal import DELETED_USER, Walk, actor_of
from atrium.wiki.api.query.listing import prefixed, starts_with, title_key
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun
from atrium.wiki.api.query.revision_lists import content_slots, revision_entry, revision_limit
from atrium.wiki.api.query.revision_params import revision_params
from atrium.wiki.messages import messages as msg

AR = schema.archive
A = schema.actor
C = schema.comment
P = schema.page
T = schema.text
AT = schema.archive_tag
CTD = schema.change_tag_def
ALLDELETEDREVISIONS = ModuleSpec(
    "alldeletedrevisions",
    "ApiQueryAllDeletedRevisions",
    "list",
    "adr",
    (
        *revision_params(),
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


_CONTENT = {"content", "parsetree"}


def _mix(key: str, param: str) -> ApiUsageError:
    return ApiUsageError(
        "invalidparammix", msg.api(key, f"adr{param}", "adruser"), module=ALLDELETEDREVISIONS.path
    )


def _check(q: QueryRun, params: dict[str, Any], props: set[str]) -> bool:
    """The mode checks and the rights the requested fields need; True in user mode."""
    user_mode = params["user"] is not None
    if user_mode:
        for name in ("from", "to", "prefix", "excludeuser"):
            if params[name] is not None:
                raise _mix("apierror-invalidparammix-cannotusewith", name)
    else:
        for name in ("start", "end"):
            if params[name] is not None:
                raise _mix("apierror-invalidparammix-mustusewith", name)
    caller = q.ctx.caller
    if props & {"comment", "parsedcomment"} and not caller.allowed("deletedhistory"):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-cantview-deleted-comment"),
            module=ALLDELETEDREVISIONS.path,
        )
    if props & _CONTENT and not (caller.allowed("deletedtext") or caller.allowed("undelete")):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-cantview-deleted-revision-content"),
            module=ALLDELETEDREVISIONS.path,
        )
    return user_mode


async def _rows(
    q: QueryRun, params: dict[str, Any], props: set[str], generating: bool
) -> tuple[list[Row], str | None]:
    user_mode = _check(q, params, props)
    with_text = bool(props & _CONTENT) and not generating
    walk = Walk.of(params, revision_limit(q, ALLDELETEDREVISIONS, params, with_text))
    newer = walk.newer
    # Generating titles walks distinct titles (continue `ns|title`), which MediaWiki only does
    # in the title mode ascending; descending it warns and walks revisions.
    distinct = generating and params["generatetitles"] and not user_mode and newer
    if generating and params["generatetitles"] and not user_mode and not newer:
        q.ctx.warn(
            ALLDELETEDREVISIONS,
            "performance",
            msg.api("apiwarn-alldeletedrevisions-performance", ALLDELETEDREVISIONS.prefix),
        )
    columns: list[Any] = [
        AR.c.ar_id,
        AR.c.ar_namespace,
        AR.c.ar_title,
        AR.c.ar_rev_id.label("rev_id"),
        sa.func.coalesce(AR.c.ar_parent_id, 0).label("rev_parent_id"),
        AR.c.ar_timestamp.label("rev_timestamp"),
        AR.c.ar_minor_edit.label("rev_minor_edit"),
        sa.func.coalesce(AR.c.ar_len, 0).label("rev_len"),
        AR.c.ar_sha1.label("rev_sha1"),
        AR.c.ar_content_model.label("rev_content_model"),
        AR.c.ar_content_format.label("rev_content_format"),
        AR.c.ar_deleted.label("rev_deleted"),
        C.c.comment_text,
        A.c.actor_name,
        A.c.actor_user,
        P.c.page_id,
    ]
    joined = (
        AR.join(A, A.c.actor_id == AR.c.ar_actor)
        .join(C, C.c.comment_id == AR.c.ar_comment_id)
        .outerjoin(
            P, sa.and_(P.c.page_namespace == AR.c.ar_namespace, P.c.page_title == AR.c.ar_title)
        )
    )
    if with_text:
        columns.append(T.c.old_text)
        joined = joined.outerjoin(T, T.c.old_id == AR.c.ar_text_id)
    if distinct:
        query = sa.select(AR.c.ar_namespace, AR.c.ar_title).distinct().select_from(joined)
    else:
        query = sa.select(*columns).select_from(joined)
    if params["namespace"]:
        query = query.where(AR.c.ar_namespace.in_(params["namespace"]))
    hide_users = not q.ctx.caller.allowed("deletedhistory")
    if user_mode:
        query = query.where(actor_of(params["user"]))
        query = walk.window(query, AR.c.ar_timestamp)
        keys: list[Any] = [AR.c.ar_timestamp, AR.c.ar_id]
        kinds: tuple[type, ...] = (str, int)
        fields = ["rev_timestamp", "ar_id"]
    else:
        # Titles walk in the namespace order of one namespace (MediaWiki requires one for
        # from/to/prefix; with several, the keys still order by namespace first).
        ns = params["namespace"][0] if params["namespace"] else 0
        start = title_key(q, params["from"], ns)
        end = title_key(q, params["to"], ns)
        prefix = title_key(q, params["prefix"], ns)
        descending = not newer
        if start is not None:
            query = query.where(AR.c.ar_title <= start if descending else AR.c.ar_title >= start)
        if end is not None:
            query = query.where(AR.c.ar_title >= end if descending else AR.c.ar_title <= end)
        if prefix is not None:
            query = query.where(starts_with(AR.c.ar_title, prefix))
        if params["excludeuser"] is not None:
            query = query.where(sa.not_(actor_of(params["excludeuser"])))
        keys = [AR.c.ar_namespace, AR.c.ar_title, AR.c.ar_timestamp, AR.c.ar_id]
        kinds = (int, str, str, int)
        fields = ["ar_namespace", "ar_title", "rev_timestamp", "ar_id"]
        if distinct:
            keys, kinds, fields = keys[:2], kinds[:2], fields[:2]
    if hide_users and (params["user"] is not None or params["excludeuser"] is not None):
        query = query.where(AR.c.ar_deleted.op("&")(DELETED_USER) == 0)
    return await walk.page(
        q,
        query,
        keys,
        kinds,
        fields,
        tag=params["tag"],
        tagged=lambda tid: sa.exists().where(
            AT.c.at_rev_id == AR.c.ar_rev_id, AT.c.at_tag_id == tid
        ),
    )


def _archive_tags(conn: Conn, rev_ids: list[int]) -> dict[int, list[str]]:
    if not rev_ids:
        return {}
    out: dict[int, list[str]] = {}
    for row in conn.all(
        sa.select(AT.c.at_rev_id, CTD.c.ctd_name)
        .select_from(AT.join(CTD, CTD.c.ctd_id == AT.c.at_tag_id))
        .where(AT.c.at_rev_id.in_(rev_ids))
        .order_by(AT.c.at_rev_id, CTD.c.ctd_name)
    ):
        out.setdefault(int(row["at_rev_id"]), []).append(str(row["ctd_name"]))
    return out


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    props = set(params["prop"])
    rows, cont = await _rows(q, params, props, False)
    slots = content_slots(q, ALLDELETEDREVISIONS, params, props)
    tags: dict[int, list[str]] = {}
    if "tags" in props:
        ids = [int(r["rev_id"]) for r in rows]
        tags = await q.ctx.db.read(lambda conn: _archive_tags(conn, ids))
    groups: dict[tuple[int, str], dict[str, Any]] = {}
    for row in rows:
        key = (int(row["ar_namespace"]), str(row["ar_title"]))
        group = groups.get(key)
        if group is None:
            group = {
                "pageid": int(row["page_id"] or 0),
                "revisions": [],
                "ns": key[0],
                "title": prefixed(q, key[0], key[1]),
            }
            groups[key] = group
        group["revisions"].append(revision_entry(q, row, props, slots, tags))
    q.data["alldeletedrevisions"] = list(groups.values())
    if cont is not None:
        q.continuation.add(ALLDELETEDREVISIONS, "continue", cont)


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    """The deleted revisions' ids (their titles join the set, for callers with
    `deletedhistory`), or with `generatetitles` their titles."""
    rows, cont = await _rows(q, params, set(), True)
    if cont is not None:
        q.continuation.add_generator(ALLDELETEDREVISIONS, "continue", cont)
    if not params["generatetitles"]:
        return GeneratedPages(revids=[int(r["rev_id"]) for r in rows])
    titles = [(int(r["ar_namespace"]), str(r["ar_title"])) for r in rows]
    return GeneratedPages(titles=list(dict.fromkeys(titles)))


MODULE = QueryModule(ALLDELETEDREVISIONS, run, generate)
