"""What the list modules share: keyset paging on their sort columns, continue values, users, titles.

A list reads `limit + 1` rows in the order of its sort columns; the extra row, if any, becomes the
continue value (its sort key joined with `|`), and the next request starts at that row inclusive,
as MediaWiki's modules do. So paging is stable whatever the limit, and every row comes exactly once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import ModuleSpec
from atrium.wiki.api.query.pageset import QueryRun, badcontinue, cont_int
from atrium.wiki.messages import messages as msg
from atrium.wiki.titles import InvalidTitle


def parse_continue(value: str | None, kinds: Sequence[type]) -> list[Any] | None:
    """`a|b|c` -> typed parts; a wrong count or a non-integer part is `badcontinue`."""
    if value is None:
        return None
    parts = value.split("|", len(kinds) - 1)
    if len(parts) != len(kinds):
        raise badcontinue()
    out: list[Any] = []
    for part, kind in zip(parts, kinds, strict=True):
        if kind is int:
            out.append(cont_int(part))
        else:
            out.append(part)
    return out


def from_key(columns: Sequence[Any], values: Sequence[Any], descending: bool) -> Any:
    """Rows at or after `values` in the order of `columns` (inclusive keyset condition)."""
    first, *rest = columns
    value, *others = values
    if not rest:
        return first <= value if descending else first >= value
    strictly = first < value if descending else first > value
    return sa.or_(strictly, sa.and_(first == value, from_key(rest, others, descending)))


def order(columns: Sequence[Any], descending: bool) -> list[Any]:
    return [c.desc() if descending else c.asc() for c in columns]


def split_page(rows: list[Row], limit: int) -> tuple[list[Row], Row | None]:
    if len(rows) > limit:
        return rows[:limit], rows[limit]
    return rows, None


def title_key(q: QueryRun, text: str | None, ns: int) -> str | None:
    """A title fragment (from/to/prefix) as a database key in namespace `ns`."""
    if text is None:
        return None
    if text == "":
        return ""
    try:
        title = q.ctx.site.parser.parse(text, ns)
    except InvalidTitle as exc:
        # ApiQueryBase::titlePartToKey: a part no title can start with is `invalidtitle`; the
        # query runner names the module.
        raise ApiUsageError(
            "invalidtitle", msg.api("apierror-invalidtitle", msg.escape_wikitext(text))
        ) from exc
    return title.dbkey if title.ns == ns else text.replace(" ", "_")


# Titles and user names are at most 255 bytes (MediaWiki's `varbinary(255)` keys).
MAX_KEY_BYTES = 255


def starts_with(column: Any, prefix: str) -> Any:
    """`column LIKE 'prefix%'` with the LIKE wildcards escaped. A prefix longer than any key
    matches nothing, and is not sent: SQLite refuses LIKE patterns over 50,000 bytes."""
    if len(prefix.encode()) > MAX_KEY_BYTES:
        return sa.false()
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return column.like(escaped + "%", escape="\\")


def prefixed(q: QueryRun, ns: int, dbkey: str) -> str:
    return q.ctx.site.parser.prefixed_text(ns, dbkey)


def require_one(module: ModuleSpec, params: dict[str, Any], a: str, b: str) -> None:
    """Exactly one of two parameters (title/pageid and the like)."""
    names = [module.prefix + a, module.prefix + b]
    if params[a] is not None and params[b] is not None:
        raise ApiUsageError("invalidparammix", msg.invalidparammix(names), module=module.path)
    if params[a] is None and params[b] is None:
        raise ApiUsageError("missingparam", msg.missing_one_of(names), module=module.path)


def actor_ids(conn: Conn, user: str) -> list[int]:
    """Actors of a user parameter value: a name, an IP, `#id` or `prefix>name`."""
    actor = schema.actor
    if user.startswith("#") and user[1:].isdigit():
        return list(
            conn.scalars(sa.select(actor.c.actor_id).where(actor.c.actor_user == int(user[1:])))
        )
    return list(conn.scalars(sa.select(actor.c.actor_id).where(actor.c.actor_name == user)))


def tag_id(conn: Conn, name: str) -> int | None:
    value = conn.scalar(
        sa.select(schema.change_tag_def.c.ctd_id).where(schema.change_tag_def.c.ctd_name == name)
    )
    return None if value is None else int(value)


def revision_tags(conn: Conn, rev_ids: Sequence[int]) -> dict[int, list[str]]:
    if not rev_ids:
        return {}
    ct, ctd = schema.change_tag, schema.change_tag_def
    rows = conn.all(
        sa.select(ct.c.ct_rev_id, ctd.c.ctd_name)
        .select_from(ct.join(ctd, ctd.c.ctd_id == ct.c.ct_tag_id))
        .where(ct.c.ct_rev_id.in_(list(rev_ids)))
        .order_by(ct.c.ct_rev_id, ctd.c.ctd_name)
    )
    out: dict[int, list[str]] = {}
    for row in rows:
        out.setdefault(int(row["ct_rev_id"]), []).append(str(row["ctd_name"]))
    return out


def event_tags(conn: Conn, column: str, ids: Sequence[int]) -> dict[int, list[str]]:
    """Tags of recent-changes rows (`cte_rc_id`) or log entries (`cte_log_id`)."""
    if not ids:
        return {}
    cte, ctd = schema.change_tag_event, schema.change_tag_def
    col = cte.c[column]
    rows = conn.all(
        sa.select(col.label("id"), ctd.c.ctd_name)
        .select_from(cte.join(ctd, ctd.c.ctd_id == cte.c.cte_tag_id))
        .where(col.in_(list(ids)))
        .order_by(col, ctd.c.ctd_name)
    )
    out: dict[int, list[str]] = {}
    for row in rows:
        out.setdefault(int(row["id"]), []).append(str(row["ctd_name"]))
    return out


Emit = Callable[[Row], dict[str, Any]]


def prefix_pattern(text: str) -> str:
    """A LIKE pattern (escape `\\`) matching the values that start with `text`."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
