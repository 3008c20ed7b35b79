"""Reading the link tables: what pages link to (links, templates, categories, files, URLs, language
and interwiki links) and what links to pages (redirects, backlinks, transclusions, file usage).

Every reader pages by a key of whole columns in MediaWiki's order, so a continuation value is the key
of the first row not returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema


def keyset(
    query: sa.Select[Any],
    columns: Sequence[sa.ColumnElement[Any]],
    cont: Sequence[object] | None,
    descending: bool,
    limit: int,
) -> sa.Select[Any]:
    """Order by `columns`, start at `cont` (inclusive) and take `limit` rows."""
    if cont is not None:
        key = sa.tuple_(*columns)
        start = sa.tuple_(*[sa.literal(v) for v in cont])
        query = query.where(key <= start if descending else key >= start)
    order = [c.desc() for c in columns] if descending else list(columns)
    return query.order_by(*order).limit(limit)


def outgoing(
    conn: Conn,
    table: sa.Table,
    page_ids: Sequence[int],
    key_columns: Sequence[str],
    *,
    where: Sequence[sa.ColumnElement[bool]] = (),
    extra: Sequence[str] = (),
    cont: Sequence[object] | None = None,
    descending: bool = False,
    limit: int,
) -> list[Row]:
    """Rows of a `*_from`-keyed link table for some pages, ordered by (from, *key_columns)."""
    if not page_ids:
        return []
    columns = [table.c[name] for name in key_columns]
    from_col = next(c for c in table.c if c.name.endswith("_from"))
    query = sa.select(from_col, *columns, *[table.c[n] for n in extra]).where(
        from_col.in_(list(page_ids)), *where
    )
    return conn.all(keyset(query, [from_col, *columns], cont, descending, limit))


def hidden_categories(conn: Conn, names: Sequence[str]) -> set[str]:
    """Which of these categories carry `__HIDDENCAT__` (the `hiddencat` page property)."""
    if not names:
        return set()
    p, pp = schema.page, schema.page_props
    rows = conn.all(
        sa.select(p.c.page_title)
        .select_from(p.join(pp, pp.c.pp_page == p.c.page_id))
        .where(
            p.c.page_namespace == 14,
            p.c.page_title.in_(list(names)),
            pp.c.pp_propname == "hiddencat",
        )
    )
    return {str(r["page_title"]) for r in rows}


def category_counts(conn: Conn, names: Sequence[str]) -> dict[str, dict[str, int]]:
    """Members of each category by type (page, subcat, file), counted from categorylinks."""
    if not names:
        return {}
    cl = schema.categorylinks
    rows = conn.all(
        sa.select(cl.c.cl_to, cl.c.cl_type, sa.func.count().label("n"))
        .where(cl.c.cl_to.in_(list(names)))
        .group_by(cl.c.cl_to, cl.c.cl_type)
    )
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        counts.setdefault(str(row["cl_to"]), {})[str(row["cl_type"])] = int(row["n"])
    return counts


def incoming(
    conn: Conn,
    kind: str,
    targets: Sequence[tuple[int, str]],
    *,
    namespaces: Sequence[int] | None,
    redirect_filter: bool | None,
    fragment_filter: bool | None,
    cont: Sequence[object] | None,
    key: Sequence[str],
    limit: int,
) -> list[Row]:
    """Pages pointing at the targets (ns, dbkey) through `redirects`, `links`, `templates` or
    `files`, ordered by `key` (a subset of target_ns, target_title, then page_id) as MediaWiki's
    ApiQueryBacklinksprop."""
    if not targets:
        return []
    p = schema.page
    ns_col, title_col = _target_columns(kind)
    table = _incoming_table(kind)
    from_col = next(c for c in table.c if c.name.endswith("_from"))
    match = sa.or_(*[sa.and_(ns_col == ns, title_col == dbkey) for ns, dbkey in targets])
    columns: list[Any] = [
        ns_col.label("target_ns"),
        title_col.label("target_title"),
        p.c.page_id,
        p.c.page_namespace,
        p.c.page_title,
        p.c.page_is_redirect,
    ]
    if kind == "redirects":
        columns.append(table.c.rd_fragment)
    query = sa.select(*columns).select_from(table.join(p, p.c.page_id == from_col)).where(match)
    if kind == "redirects":
        query = query.where(table.c.rd_interwiki == "")
    if namespaces is not None:
        query = query.where(p.c.page_namespace.in_(list(namespaces)))
    if redirect_filter is not None:
        query = query.where(p.c.page_is_redirect.is_(redirect_filter))
    if fragment_filter is not None and kind == "redirects":
        query = query.where(
            table.c.rd_fragment != "" if fragment_filter else table.c.rd_fragment == ""
        )
    inner = query.subquery()
    return conn.all(keyset(sa.select(inner), [inner.c[k] for k in key], cont, False, limit))


def _incoming_table(kind: str) -> sa.Table:
    return {
        "redirects": schema.redirect,
        "links": schema.pagelinks,
        "templates": schema.templatelinks,
        "files": schema.imagelinks,
    }[kind]


def _target_columns(kind: str) -> tuple[Any, Any]:
    if kind == "files":
        il = schema.imagelinks
        return sa.literal(6), il.c.il_to
    t = _incoming_table(kind)
    prefix = {"redirects": "rd", "links": "pl", "templates": "tl"}[kind]
    return t.c[f"{prefix}_namespace"], t.c[f"{prefix}_title"]


def page_props(
    conn: Conn, page_ids: Sequence[int], names: Sequence[str] | None
) -> dict[int, dict[str, str]]:
    if not page_ids:
        return {}
    pp = schema.page_props
    query = sa.select(pp.c.pp_page, pp.c.pp_propname, pp.c.pp_value).where(
        pp.c.pp_page.in_(list(page_ids))
    )
    if names is not None:
        query = query.where(pp.c.pp_propname.in_(list(names)))
    props: dict[int, dict[str, str]] = {}
    for row in conn.all(query.order_by(pp.c.pp_page, pp.c.pp_propname)):
        props.setdefault(int(row["pp_page"]), {})[str(row["pp_propname"])] = str(row["pp_value"])
    return props


def contributors(conn: Conn, page_ids: Sequence[int]) -> list[Row]:
    """(page, user id, user name) for every registered user who edited the pages, and anonymous
    editors counted per page as rows with a null user."""
    if not page_ids:
        return []
    r, a = schema.revision, schema.actor
    query = (
        sa.select(r.c.rev_page, a.c.actor_user, a.c.actor_name)
        .select_from(r.join(a, a.c.actor_id == r.c.rev_actor))
        .where(r.c.rev_page.in_(list(page_ids)))
        .where(sa.text("(revision.rev_deleted & 4) = 0"))
        .distinct()
    )
    return conn.all(query)


def user_groups(conn: Conn, user_ids: Sequence[int]) -> dict[int, set[str]]:
    if not user_ids:
        return {}
    ug = schema.user_groups
    groups: dict[int, set[str]] = {}
    for row in conn.all(
        sa.select(ug.c.ug_user, ug.c.ug_group).where(ug.c.ug_user.in_(list(user_ids)))
    ):
        groups.setdefault(int(row["ug_user"]), set()).add(str(row["ug_group"]))
    return groups
