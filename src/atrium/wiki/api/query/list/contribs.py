"""`list=usercontribs` and `list=allrevisions`: revisions by user, or all revisions, newest first
unless `dir=newer`.

usercontribs walks (rev_timestamp, rev_id) for one user (continue `<timestamp>|<rev_id>`), and
(actor name for a prefix, else actor id, rev_timestamp, rev_id) for several (`name|<name>|<timestamp>|<rev_id>` or
`actor|<actor id>|<timestamp>|<rev_id>`), as ApiQueryUserContribs. allrevisions walks (rev_timestamp,
rev_id) and groups the revisions of a batch by page, as ApiQueryAllRevisions.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
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
from atrium.wiki.api.query.journal import (
    DELETED_COMMENT,
    DELETED_RESTRICTED,
    DELETED_TEXT,
    DELETED_USER,
    actor_of,
    add_comment,
    add_user,
    can_see,
    check_show,
    keyset,
    may_patrol,
    parsed_comment,
    patrolflag_denied,
    sha1_hex,
    time_window,
    timestamp,
)
from atrium.wiki.api.query.listing import (
    from_key,
    order,
    parse_continue,
    prefixed,
    revision_tags,
    split_page,
    starts_with,
    tag_id,
)
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun, badcontinue
from atrium.wiki.api.query.revision_params import revision_params
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import pages as page_reads

R = schema.revision
A = schema.actor
C = schema.comment
P = schema.page
RC = schema.recentchanges
T = schema.text

_UC_PAIRS = (
    ("minor", "!minor"),
    ("patrolled", "!patrolled"),
    ("autopatrolled", "!autopatrolled"),
    ("autopatrolled", "!patrolled"),
    ("top", "!top"),
    ("new", "!new"),
)
_PATROL_SHOW = {"patrolled", "!patrolled", "autopatrolled", "!autopatrolled"}


def _hidden_user_filter(q: QueryRun, query: Any) -> Any:
    """Rows whose user is hidden from the caller are left out (ApiQueryUserContribs)."""
    caller = q.ctx.caller
    if not caller.allowed("deletedhistory"):
        return query.where(R.c.rev_deleted.op("&")(DELETED_USER) == 0)
    if not (caller.allowed("suppressrevision") or caller.allowed("viewsuppressed")):
        bits = DELETED_USER | DELETED_RESTRICTED
        return query.where(R.c.rev_deleted.op("&")(bits) != bits)
    return query


# list=usercontribs


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


async def _uc_rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    spec = USERCONTRIBS
    given = [n for n in ("user", "userids", "userprefix") if params[n]]
    if len(given) != 1:
        names = ["ucuserprefix", "ucuserids", "ucuser"]
        if given:
            raise ApiUsageError(
                "invalidparammix",
                msg.invalidparammix(["uc" + n for n in given]),
                module=spec.path,
            )
        raise ApiUsageError("missingparam", msg.missing_one_of(names), module=spec.path)
    show = list(params["show"] or ())
    if params["toponly"]:
        show.append("top")
    check_show(spec, show, _UC_PAIRS)
    if set(show) & _PATROL_SHOW and not may_patrol(q):
        raise patrolflag_denied(spec)
    if "patrolled" in params["prop"] and not may_patrol(q):
        raise patrolflag_denied(spec)
    newer = params["dir"] == "newer"
    by_name = bool(params["userprefix"])
    multi = by_name or len(params["user"] or params["userids"] or []) > 1
    mode = "name" if by_name else "actor"
    user_col = A.c.actor_name if by_name else R.c.rev_actor
    query = sa.select(
        R,
        A.c.actor_name,
        A.c.actor_user,
        C.c.comment_text,
        P.c.page_namespace,
        P.c.page_title,
        P.c.page_latest,
        RC.c.rc_patrolled,
    ).select_from(
        R.join(A, A.c.actor_id == R.c.rev_actor)
        .join(C, C.c.comment_id == R.c.rev_comment_id)
        .join(P, P.c.page_id == R.c.rev_page)
        .outerjoin(RC, sa.and_(RC.c.rc_this_oldid == R.c.rev_id, RC.c.rc_type.in_((0, 1))))
    )
    if params["userprefix"]:
        query = query.where(starts_with(A.c.actor_name, params["userprefix"]))
    elif params["userids"]:
        query = query.where(A.c.actor_user.in_(params["userids"]))
    else:
        query = query.where(sa.or_(*(actor_of(u) for u in params["user"])))
    query = _hidden_user_filter(q, query)
    query = time_window(query, R.c.rev_timestamp, params["start"], params["end"], newer)
    if params["namespace"]:
        query = query.where(P.c.page_namespace.in_(params["namespace"]))
    conds = {
        "minor": R.c.rev_minor_edit == sa.true(),
        "!minor": R.c.rev_minor_edit == sa.false(),
        "patrolled": RC.c.rc_patrolled != 0,
        "!patrolled": RC.c.rc_patrolled == 0,
        "autopatrolled": RC.c.rc_patrolled == 2,
        "!autopatrolled": RC.c.rc_patrolled != 2,
        "top": R.c.rev_id == P.c.page_latest,
        "!top": R.c.rev_id != P.c.page_latest,
        "new": R.c.rev_parent_id == 0,
        "!new": R.c.rev_parent_id != 0,
    }
    for value in sorted(set(show)):
        query = query.where(conds[value])
    columns: list[Any] = [R.c.rev_timestamp, R.c.rev_id]
    kinds: tuple[type, ...] = (str, int)
    cont = params["continue"]
    if multi:
        columns = [user_col, *columns]
        kinds = (str if by_name else int, str, int)
        if cont is not None:
            given_mode, _, rest = cont.partition("|")
            if given_mode != mode:
                raise badcontinue()
            cont = rest
    limit = params["limit"]
    tag = params["tag"]

    def read(conn: Conn) -> list[Row]:
        nonlocal query
        if tag is not None:
            tid = tag_id(conn, tag)
            if tid is None:
                return []
            ct = schema.change_tag
            query = query.where(
                sa.exists().where(ct.c.ct_rev_id == R.c.rev_id, ct.c.ct_tag_id == tid)
            )
        query = keyset(query, columns, cont, kinds, newer)
        return conn.all(query.limit(limit + 1))

    rows, following = split_page(await q.ctx.db.read(read), limit)
    nxt = None
    if following is not None:
        nxt = f"{following['rev_timestamp']}|{following['rev_id']}"
        if multi:
            who = following["actor_name"] if by_name else following["rev_actor"]
            nxt = f"{mode}|{who}|{nxt}"
    return rows, nxt


def _uc_entry(
    q: QueryRun,
    row: Row,
    props: set[str],
    parent_lens: dict[int, int],
    tags: dict[int, list[str]],
) -> dict[str, Any]:
    out = q.ctx.out
    deleted = int(row["rev_deleted"] or 0)
    entry: dict[str, Any] = {}
    hidden = False
    if deleted & DELETED_TEXT:
        out.flag_if(entry, "texthidden", True)
        hidden = True
    entry["userid"] = int(row["actor_user"] or 0)
    entry["user"] = row["actor_name"]
    if deleted & DELETED_USER:
        out.flag_if(entry, "userhidden", True)
        hidden = True
    if "ids" in props:
        entry["pageid"] = int(row["rev_page"])
        entry["revid"] = int(row["rev_id"])
        entry["parentid"] = int(row["rev_parent_id"])
    if "title" in props:
        ns = int(row["page_namespace"])
        entry["ns"] = ns
        entry["title"] = prefixed(q, ns, str(row["page_title"]))
    if "timestamp" in props:
        entry["timestamp"] = timestamp(row["rev_timestamp"])
    if "flags" in props:
        out.flag(entry, "new", int(row["rev_parent_id"]) == 0)
        out.flag(entry, "minor", bool(row["rev_minor_edit"]))
        out.flag(entry, "top", int(row["page_latest"]) == int(row["rev_id"]))
    if props & {"comment", "parsedcomment"}:
        if deleted & DELETED_COMMENT:
            out.flag_if(entry, "commenthidden", True)
            hidden = True
        if can_see(q, deleted, DELETED_COMMENT):
            if "comment" in props:
                entry["comment"] = row["comment_text"]
            if "parsedcomment" in props:
                entry["parsedcomment"] = parsed_comment(str(row["comment_text"]))
    if "patrolled" in props:
        patrolled = int(row["rc_patrolled"] or 0)
        out.flag(entry, "patrolled", patrolled != 0)
        out.flag(entry, "autopatrolled", patrolled == 2)
    if "size" in props:
        entry["size"] = int(row["rev_len"])
    if "sizediff" in props:
        entry["sizediff"] = int(row["rev_len"]) - parent_lens.get(int(row["rev_parent_id"]), 0)
    if "tags" in props:
        entry["tags"] = tags.get(int(row["rev_id"]), [])
    if hidden and deleted & DELETED_RESTRICTED:
        out.flag_if(entry, "suppressed", True)
    return entry


async def uc_run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _uc_rows(q, params)
    props = set(params["prop"])
    rev_ids = [int(r["rev_id"]) for r in rows]
    parents = [int(r["rev_parent_id"]) for r in rows if int(r["rev_parent_id"])]

    def extras(conn: Conn) -> tuple[dict[int, int], dict[int, list[str]]]:
        lens: dict[int, int] = {}
        if "sizediff" in props and parents:
            for row in conn.all(sa.select(R.c.rev_id, R.c.rev_len).where(R.c.rev_id.in_(parents))):
                lens[int(row["rev_id"])] = int(row["rev_len"])
        tags = revision_tags(conn, rev_ids) if "tags" in props else {}
        return lens, tags

    lens, tags = await q.ctx.db.read(extras)
    q.data["usercontribs"] = [_uc_entry(q, row, props, lens, tags) for row in rows]
    if cont is not None:
        q.continuation.add(USERCONTRIBS, "continue", cont)


USERCONTRIBS_MODULE = QueryModule(USERCONTRIBS, uc_run)


# list=allrevisions

_CONTENT = {"content", "parsetree"}


def revision_limit(q: QueryRun, spec: Any, params: dict[str, Any], with_text: bool) -> int:
    """ApiQueryRevisionsBase: 10 by default; 50 (500 with apihighlimits) when content is read."""
    limit = params["limit"]
    raw = q.ctx.params.get_raw(spec.prefix + "limit") or q.ctx.params.get_raw(
        "g" + spec.prefix + "limit"
    )
    if limit is None:
        return 10
    if with_text:
        ceiling = 500 if q.ctx.caller.allowed("apihighlimits") else 50
        if raw == "max" or limit > ceiling:
            return ceiling
    return int(limit)


ALLREVISIONS = ModuleSpec(
    "allrevisions",
    "ApiQueryAllRevisions",
    "list",
    "arv",
    (
        *revision_params(),
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


async def _arv_rows(
    q: QueryRun, params: dict[str, Any], with_text: bool
) -> tuple[list[Row], str | None]:
    spec = ALLREVISIONS
    if params["user"] is not None and params["excludeuser"] is not None:
        raise ApiUsageError(
            "invalidparammix",
            msg.invalidparammix(["arvuser", "arvexcludeuser"]),
            module=spec.path,
        )
    newer = params["dir"] == "newer"
    columns: list[Any] = [*page_reads.REVISION_COLUMNS, P.c.page_namespace, P.c.page_title]
    joined = (
        R.join(C, C.c.comment_id == R.c.rev_comment_id)
        .join(A, A.c.actor_id == R.c.rev_actor)
        .join(P, P.c.page_id == R.c.rev_page)
    )
    if with_text:
        columns.append(T.c.old_text)
        joined = joined.join(T, T.c.old_id == R.c.rev_text_id)
    query = sa.select(*columns).select_from(joined)
    query = time_window(query, R.c.rev_timestamp, params["start"], params["end"], newer)
    if params["namespace"]:
        query = query.where(P.c.page_namespace.in_(params["namespace"]))
    if params["user"] is not None:
        query = query.where(actor_of(params["user"]))
    if params["excludeuser"] is not None:
        query = query.where(sa.not_(actor_of(params["excludeuser"])))
    if (
        params["user"] is not None or params["excludeuser"] is not None
    ) and not q.ctx.caller.allowed("deletedhistory"):
        query = query.where(R.c.rev_deleted.op("&")(DELETED_USER) == 0)
    start = parse_continue(params["continue"], (str, int))
    keys = [R.c.rev_timestamp, R.c.rev_id]
    if start is not None:
        query = query.where(from_key(keys, start, not newer))
    limit = revision_limit(q, ALLREVISIONS, params, with_text)
    query = query.order_by(*order(keys, not newer)).limit(limit + 1)
    rows, following = split_page(await q.ctx.db.read(lambda conn: conn.all(query)), limit)
    nxt = None if following is None else f"{following['rev_timestamp']}|{following['rev_id']}"
    return rows, nxt


def revision_entry(
    q: QueryRun,
    row: Row,
    props: set[str],
    slots: list[str] | None,
    tags: dict[int, list[str]],
) -> dict[str, Any]:
    """ApiQueryRevisionsBase::extractRevisionInfo for the props a list of revisions shows."""
    out = q.ctx.out
    deleted = int(row["rev_deleted"] or 0)
    rev: dict[str, Any] = {}
    hidden = False
    if "ids" in props:
        rev["revid"] = int(row["rev_id"])
        rev["parentid"] = int(row["rev_parent_id"])
    if "flags" in props:
        out.flag(rev, "minor", bool(row["rev_minor_edit"]))
    hidden |= add_user(q, rev, row, deleted, "user" in props, "userid" in props)
    if "timestamp" in props:
        rev["timestamp"] = timestamp(row["rev_timestamp"])
    if "size" in props:
        rev["size"] = int(row["rev_len"])
    if "sha1" in props:
        if deleted & DELETED_TEXT:
            out.flag_if(rev, "sha1hidden", True)
            hidden = True
        if can_see(q, deleted, DELETED_TEXT):
            rev["sha1"] = sha1_hex(str(row["rev_sha1"]))
    if "roles" in props:
        rev["roles"] = ["main"]
    hidden |= add_comment(
        q, rev, row["comment_text"], deleted, "comment" in props, "parsedcomment" in props
    )
    if "tags" in props:
        rev["tags"] = tags.get(int(row["rev_id"]), [])
    content: dict[str, Any] = {}
    text = row.get("old_text")
    if text is not None and not can_see(q, deleted, DELETED_TEXT):
        text = None
    if "slotsize" in props:
        content["size"] = int(row["rev_len"])
    if "slotsha1" in props and can_see(q, deleted, DELETED_TEXT):
        content["sha1"] = sha1_hex(str(row["rev_sha1"]))
    if props & {"contentmodel", "content"}:
        content["contentmodel"] = row["rev_content_model"]
    if "content" in props:
        content["contentformat"] = row["rev_content_format"]
        if deleted & DELETED_TEXT:
            out.flag_if(content, "texthidden", True)
            hidden = True
        if text is not None:
            out.content(content, "content", text)
    if slots is not None:
        if content:
            rev["slots"] = {"main": content}
    elif "content" in props:
        rev["contentformat"] = content.pop("contentformat")
        rev["contentmodel"] = content.pop("contentmodel")
        rev.update(content)
    elif "contentmodel" in props:
        rev["contentmodel"] = content["contentmodel"]
    if hidden and deleted & DELETED_RESTRICTED:
        out.flag_if(rev, "suppressed", True)
    return rev


def content_slots(
    q: QueryRun, spec: Any, params: dict[str, Any], props: set[str]
) -> list[str] | None:
    """The `slots` asked for (None: the legacy single-slot output, deprecated with content)."""
    if q.ctx.params.has(spec.prefix + "slots"):
        return list(params["slots"])
    if "content" in props:
        q.ctx.warn(
            spec, "deprecation", msg.api("apiwarn-deprecation-missingparam", spec.prefix + "slots")
        )
        q.ctx.params.note_deprecation()
    return None


async def arv_run(q: QueryRun, params: dict[str, Any]) -> None:
    props = set(params["prop"])
    with_text = bool(props & _CONTENT)
    rows, cont = await _arv_rows(q, params, with_text)
    slots = content_slots(q, ALLREVISIONS, params, props)
    tags = (
        await q.ctx.db.read(page_reads.revision_tags, [int(r["rev_id"]) for r in rows])
        if "tags" in props
        else {}
    )
    groups: dict[int, dict[str, Any]] = {}
    for row in rows:
        page_id = int(row["rev_page"])
        rev = revision_entry(q, row, props, slots, tags)
        group = groups.get(page_id)
        if group is None:
            ns = int(row["page_namespace"])
            group = {
                "pageid": page_id,
                "revisions": [],
                "ns": ns,
                "title": prefixed(q, ns, str(row["page_title"])),
            }
            groups[page_id] = group
        group["revisions"].append(rev)
    q.data["allrevisions"] = list(groups.values())
    if cont is not None:
        q.continuation.add(ALLREVISIONS, "continue", cont)


async def arv_generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _arv_rows(q, params, False)
    if cont is not None:
        q.continuation.add_generator(ALLREVISIONS, "continue", cont)
    if params["generatetitles"]:
        return GeneratedPages(page_ids=list(dict.fromkeys(int(r["rev_page"]) for r in rows)))
    return GeneratedPages(revids=[int(r["rev_id"]) for r in rows])


ALLREVISIONS_MODULE = QueryModule(ALLREVISIONS, arv_run, arv_generate)

MODULES = (USERCONTRIBS_MODULE, ALLREVISIONS_MODULE)
