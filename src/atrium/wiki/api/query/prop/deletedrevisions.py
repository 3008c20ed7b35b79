"""`prop=deletedrevisions`: the archived (deleted) revisions of the pages in the set, read from
`archive` in MediaWiki's order (namespace, title, timestamp, archive id; newest first unless
`dir=newer`), continued by `ns|title|timestamp|ar_id`; when the set came from revision ids, only
the deleted ones among them, by revision id, continued by `rev_id|ar_id`. Comments need
`deletedhistory`, content `deletedtext` (or `undelete`), as MediaWiki checks them. As a generator it
yields revision ids, as ApiQueryDeletedRevisions does."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    TIMESTAMP,
    USER,
    ModuleSpec,
    Param,
    enum,
)
from atrium.wiki.api.query.pageset import (
    GeneratedPages,
    QueryModule,
    QueryRun,
    badcontinue,
    cont_int,
)
from atrium.wiki.api.query.prop.revisions import _legacy_content, _revision, _visible, parse_options
from atrium.wiki.api.query.revision_params import revision_params
from atrium.wiki.changes.pages import split_sections
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import revisions as revreads

AR = schema.archive
_MODULE = "query+deletedrevisions"
_LIMIT_SMALL, _LIMIT_SMALL_HIGH = 50, 500
_LIMIT_BIG, _LIMIT_BIG_HIGH = 500, 5000


def _archive_rows(
    conn: Conn,
    titles: list[tuple[int, str]],
    revids: list[int] | None,
    *,
    with_text: bool,
    newer: bool,
    start: str | None,
    end: str | None,
    cont: tuple[Any, ...] | None,
    user: str | None,
    excludeuser: str | None,
    tag: int | None,
    limit: int,
) -> list[Row]:
    actor, comment = schema.actor, schema.comment
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
        comment.c.comment_text,
        actor.c.actor_name,
        actor.c.actor_user,
    ]
    joined = AR.join(comment, comment.c.comment_id == AR.c.ar_comment_id).join(
        actor, actor.c.actor_id == AR.c.ar_actor
    )
    if with_text:
        columns.append(schema.text.c.old_text)
        joined = joined.join(schema.text, schema.text.c.old_id == AR.c.ar_text_id)
    query = sa.select(*columns).select_from(joined)
    keys: tuple[Any, ...]
    if revids is not None:
        # Revision mode: the deleted revisions asked for, by revision id (start/end unused).
        query = query.where(AR.c.ar_rev_id.in_(revids))
        keys = (AR.c.ar_rev_id, AR.c.ar_id)
    else:
        query = query.where(
            sa.or_(*(sa.and_(AR.c.ar_namespace == ns, AR.c.ar_title == key) for ns, key in titles))
        )
        if start is not None:
            query = query.where(AR.c.ar_timestamp >= start if newer else AR.c.ar_timestamp <= start)
        if end is not None:
            query = query.where(AR.c.ar_timestamp <= end if newer else AR.c.ar_timestamp >= end)
        keys = (AR.c.ar_namespace, AR.c.ar_title, AR.c.ar_timestamp, AR.c.ar_id)
    if user is not None:
        query = query.where(actor.c.actor_name == user)
    if excludeuser is not None:
        query = query.where(actor.c.actor_name != excludeuser)
    if tag is not None:
        query = query.where(
            AR.c.ar_rev_id.in_(
                sa.select(schema.change_tag.c.ct_rev_id).where(schema.change_tag.c.ct_tag_id == tag)
            )
        )
    if cont is not None:
        query = query.where(_after(keys, cont, newer))
    ordering = [k.asc() if newer else k.desc() for k in keys]
    return conn.all(query.order_by(*ordering).limit(limit))


def _after(keys: tuple[Any, ...], values: tuple[Any, ...], newer: bool) -> Any:
    first, *rest = keys
    value, *others = values
    if not rest:
        return first >= value if newer else first <= value
    strictly = first > value if newer else first < value
    return sa.or_(strictly, sa.and_(first == value, _after(tuple(rest), tuple(others), newer)))


def _archived_tags(conn: Conn, revids: list[int]) -> dict[int, list[str]]:
    if not revids:
        return {}
    at, ctd = schema.archive_tag, schema.change_tag_def
    rows = conn.all(
        sa.select(at.c.at_rev_id, ctd.c.ctd_name)
        .select_from(at.join(ctd, ctd.c.ctd_id == at.c.at_tag_id))
        .where(at.c.at_rev_id.in_(revids))
        .order_by(ctd.c.ctd_name)
    )
    found: dict[int, list[str]] = {}
    for row in rows:
        found.setdefault(int(row["at_rev_id"]), []).append(str(row["ctd_name"]))
    return found


def _titles(q: QueryRun) -> dict[tuple[int, str], int]:
    if q.pages.revision_count:
        found: dict[tuple[int, str], int] = {}
        for title in q.pages.deleted_revids.values():
            key = q.pages.key_of(*title)
            if key is not None:
                found[title] = key
        return found
    found = {(p.ns, p.dbkey): p.page_id for p in q.pages.good.values()}
    for m in q.pages.missing:
        if m.ns >= 0:
            found[(m.ns, m.dbkey)] = m.fake_id
    return found


def _continue(value: str | None, by_revision: bool) -> tuple[Any, ...] | None:
    if value is None:
        return None
    parts = value.split("|")
    if by_revision:
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise badcontinue()
        return cont_int(parts[0]), cont_int(parts[1])
    if len(parts) != 4 or not parts[0].lstrip("-").isdigit() or not parts[3].isdigit():
        raise badcontinue()
    return cont_int(parts[0]), parts[1], parts[2], cont_int(parts[3])


DELETEDREVISIONS = ModuleSpec(
    "deletedrevisions",
    "ApiQueryDeletedRevisions",
    "prop",
    "drv",
    (
        *revision_params(),
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


async def _rows(
    q: QueryRun, params: dict[str, Any], with_text: bool, limit: int
) -> tuple[list[Row], dict[tuple[int, str], int]]:
    titles = _titles(q)
    if not titles:
        return [], titles
    if params["user"] is not None and params["excludeuser"] is not None:
        raise ApiUsageError(
            "invalidparammix", msg.invalidparammix(["drvuser", "drvexcludeuser"]), module=_MODULE
        )
    tag: int | None = None
    if params["tag"] is not None:
        tag = await q.ctx.db.read(revreads.tag_id, params["tag"])
        if tag is None:
            return [], titles
    by_revision = bool(q.pages.revision_count)
    cont = _continue(params["continue"], by_revision)
    revids = sorted(q.pages.deleted_revids) if by_revision else None
    rows = await q.ctx.db.read(
        lambda conn: _archive_rows(
            conn,
            list(titles),
            revids,
            with_text=with_text,
            newer=params["dir"] == "newer",
            start=params["start"],
            end=params["end"],
            cont=cont,
            user=params["user"],
            excludeuser=params["excludeuser"],
            tag=tag,
            limit=limit + 1,
        )
    )
    if len(rows) > limit:
        row = rows[limit]
        value = (
            f"{row['rev_id']}|{row['ar_id']}"
            if by_revision
            else f"{row['ar_namespace']}|{row['ar_title']}|{row['rev_timestamp']}|{row['ar_id']}"
        )
        q.continuation.add(DELETEDREVISIONS, "continue", value)
        rows = rows[:limit]
    return list(rows), titles


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    ctx = q.ctx
    opts = await parse_options(q, params, DELETEDREVISIONS)
    props, slots, fetch = opts.props, opts.slots, opts.fetch_content
    if props & {"comment", "parsedcomment"} and not ctx.caller.allowed("deletedhistory"):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-cantview-deleted-comment"),
            module=_MODULE,
        )
    if fetch and not (ctx.caller.allowed("deletedtext") or ctx.caller.allowed("undelete")):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-cantview-deleted-revision-content"),
            module=_MODULE,
        )
    high = ctx.caller.allowed("apihighlimits")
    if params["limit"] is not None:
        limit = int(params["limit"])
    elif opts.parse:
        limit = 1
    else:
        limit = 10
    ceiling = (
        (_LIMIT_SMALL_HIGH if high else _LIMIT_SMALL)
        if fetch
        else (_LIMIT_BIG_HIGH if high else _LIMIT_BIG)
    )
    limit = min(limit, 1 if opts.parse else ceiling)
    rows, titles = await _rows(q, params, fetch, limit)
    tags = (
        await ctx.db.read(_archived_tags, [int(r["rev_id"]) for r in rows])
        if "tags" in props
        else {}
    )
    for row in rows:
        key = titles[(int(row["ar_namespace"]), str(row["ar_title"]))]
        record = dict(row)
        record["rev_page"] = key
        extra: dict[str, Any] = {}
        text = record.get("old_text")
        if (
            slots is None
            and fetch
            and text is not None
            and _visible(q, int(record["rev_deleted"] or 0))(1)
        ):
            if opts.section is not None:
                parts = split_sections(str(text))
                if opts.section.isdigit() and int(opts.section) < len(parts):
                    text = parts[int(opts.section)].rstrip("\n")
            extra = await _legacy_content(q, record, str(text), opts)
        q.page_entry(key).setdefault("deletedrevisions", []).append(
            _revision(q, record, opts, tags, extra)
        )


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    """As a generator: the deleted revisions' ids (PageSet::populateFromRevisionIDs)."""
    limit = int(params["limit"] or 10)
    rows, _ = await _rows(q, params, False, limit)
    return GeneratedPages(revids=[int(r["rev_id"]) for r in rows])


MODULE = QueryModule(DELETEDREVISIONS, run, generate)
