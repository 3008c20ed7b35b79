"""The maintenance reports (QueryPage's subclasses: Lonelypages, Wantedpages, Shortpages …),
run live as MediaWiki does without miser mode: each report is a query giving (namespace,
title[, value][, extra fields]), sorted by value (then namespace and title) or by title, read a
page at a time. `list=querypage` and the report Special pages both run them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.titles import NS_CATEGORY, NS_FILE, NS_MEDIA, NS_MEDIAWIKI, NS_TEMPLATE

P = schema.page
R = schema.revision
PL = schema.pagelinks
TL = schema.templatelinks
CL = schema.categorylinks
IL = schema.imagelinks
LL = schema.langlinks
RD = schema.redirect
WL = schema.watchlist
IMG = schema.image
CONTENT = 0  # $wgContentNamespaces


@dataclass(frozen=True)
class Report:
    build: Callable[[], Any]  # a select with namespace, title, [value] and extra columns
    descending: bool = True  # QueryPage::sortDescending
    by_value: bool = True  # ordered by value; else by namespace and title
    timestamps: bool = False  # QueryPage::usesTimestamps
    right: str | None = None  # a restricted special page


def _articles() -> Any:
    return sa.and_(P.c.page_namespace == CONTENT, P.c.page_is_redirect == sa.false())


def _pages(where: Any, ns: int | None = None) -> Any:
    query = sa.select(P.c.page_namespace.label("namespace"), P.c.page_title.label("title"))
    if ns is not None:
        query = query.where(P.c.page_namespace == ns, P.c.page_is_redirect == sa.false())
    return query.where(where)


def _no_rows(table: sa.Table, column: str) -> Any:
    return ~sa.exists().where(table.c[column] == P.c.page_id)


def _counted(
    table: sa.Table, ns_col: str | None, title_col: str, having: int = 0, ns_value: int = 0
) -> Any:
    ns = table.c[ns_col] if ns_col else sa.literal(ns_value)
    query = sa.select(
        ns.label("namespace"), table.c[title_col].label("title"), sa.func.count().label("value")
    ).group_by(ns, table.c[title_col])
    return query.having(sa.func.count() > having) if having else query


def _wanted(table: sa.Table, ns_col: str | None, title_col: str, ns: int | None = None) -> Any:
    ns_value = table.c[ns_col] if ns_col else sa.literal(ns)
    missing = ~sa.exists().where(
        P.c.page_namespace == ns_value, P.c.page_title == table.c[title_col]
    )
    query = (
        sa.select(
            ns_value.label("namespace"),
            table.c[title_col].label("title"),
            sa.func.count().label("value"),
        )
        .where(missing)
        .group_by(ns_value, table.c[title_col])
    )
    return query


def _revision_counts(having: int) -> Any:
    query = (
        sa.select(
            P.c.page_namespace.label("namespace"),
            P.c.page_title.label("title"),
            sa.func.count().label("value"),
        )
        .select_from(P.join(R, R.c.rev_page == P.c.page_id))
        .where(_articles())
        .group_by(P.c.page_namespace, P.c.page_title)
    )
    return query.having(sa.func.count() > having) if having else query


def _mostlinked() -> Any:
    counted = _counted(PL, "pl_namespace", "pl_title", having=1).subquery()
    return sa.select(
        counted.c.namespace, counted.c.title, counted.c.value, P.c.page_namespace
    ).select_from(
        counted.outerjoin(
            P, sa.and_(P.c.page_namespace == counted.c.namespace, P.c.page_title == counted.c.title)
        )
    )


def _redirects() -> Any:
    return (
        sa.select(
            P.c.page_namespace.label("namespace"),
            P.c.page_title.label("title"),
            RD.c.rd_namespace,
            RD.c.rd_title,
            RD.c.rd_fragment,
            RD.c.rd_interwiki,
            P.c.page_id.label("redirid"),
        )
        .select_from(P.join(RD, RD.c.rd_from == P.c.page_id))
        .where(P.c.page_is_redirect == sa.true())
    )


def _broken() -> Any:
    target = P.alias("target")
    return (
        sa.select(
            P.c.page_namespace.label("namespace"),
            P.c.page_title.label("title"),
            P.c.page_title.label("value"),
            RD.c.rd_namespace,
            RD.c.rd_title,
            RD.c.rd_fragment,
        )
        .select_from(P.join(RD, RD.c.rd_from == P.c.page_id))
        .where(
            RD.c.rd_interwiki == "",
            ~sa.exists().where(
                target.c.page_namespace == RD.c.rd_namespace, target.c.page_title == RD.c.rd_title
            ),
        )
    )


def _double() -> Any:
    b = P.alias("b")
    rb = RD.alias("rb")
    return (
        sa.select(
            P.c.page_namespace.label("namespace"),
            P.c.page_title.label("title"),
            b.c.page_namespace.label("b_namespace"),
            b.c.page_title.label("b_title"),
            RD.c.rd_fragment.label("b_fragment"),
            rb.c.rd_namespace.label("c_namespace"),
            rb.c.rd_title.label("c_title"),
            rb.c.rd_fragment.label("c_fragment"),
            rb.c.rd_interwiki.label("c_interwiki"),
        )
        .select_from(
            P.join(RD, RD.c.rd_from == P.c.page_id)
            .join(
                b,
                sa.and_(b.c.page_namespace == RD.c.rd_namespace, b.c.page_title == RD.c.rd_title),
            )
            .join(rb, rb.c.rd_from == b.c.page_id)
        )
        .where(P.c.page_is_redirect == sa.true(), b.c.page_is_redirect == sa.true())
    )


def _media_statistics() -> Any:
    parts: list[Any] = [
        sa.func.coalesce(IMG.c.img_media_type, ""), sa.literal(";"), IMG.c.img_major_mime,
        sa.literal("/"), IMG.c.img_minor_mime, sa.literal(";"),
        sa.cast(sa.func.count(), sa.String), sa.literal(";"),
        sa.cast(sa.func.sum(IMG.c.img_size), sa.String),
    ]  # fmt: skip
    fake = parts[0]
    for part in parts[1:]:
        fake = fake.op("||")(part)
    return sa.select(
        sa.literal(NS_MEDIA).label("namespace"),
        fake.label("title"),
        sa.func.sum(IMG.c.img_size).label("value"),
    ).group_by(IMG.c.img_media_type, IMG.c.img_major_mime, IMG.c.img_minor_mime)


REPORTS: dict[str, Report] = {
    "Ancientpages": Report(
        lambda: (
            sa.select(
                P.c.page_namespace.label("namespace"),
                P.c.page_title.label("title"),
                R.c.rev_timestamp.label("value"),
            )
            .select_from(P.join(R, R.c.rev_id == P.c.page_latest))
            .where(_articles())
        ),
        descending=False,
        timestamps=True,
    ),
    "BrokenRedirects": Report(_broken, by_value=False),
    "Deadendpages": Report(
        lambda: _pages(_no_rows(PL, "pl_from"), CONTENT), by_value=False, descending=False
    ),
    "DoubleRedirects": Report(_double, by_value=False, descending=False),
    "Fewestrevisions": Report(lambda: _revision_counts(0), descending=False),
    "ListDuplicatedFiles": Report(
        lambda: (
            sa.select(
                sa.literal(NS_FILE).label("namespace"),
                sa.func.min(IMG.c.img_name).label("title"),
                sa.func.count().label("value"),
            )
            .group_by(IMG.c.img_sha1)
            .having(sa.func.count() > 1)
        )
    ),
    "Listredirects": Report(_redirects, by_value=False, descending=False),
    "Lonelypages": Report(
        lambda: _pages(
            sa.and_(
                ~sa.exists().where(
                    PL.c.pl_namespace == P.c.page_namespace, PL.c.pl_title == P.c.page_title
                ),
                ~sa.exists().where(
                    TL.c.tl_namespace == P.c.page_namespace, TL.c.tl_title == P.c.page_title
                ),
            ),
            CONTENT,
        ),
        by_value=False,
        descending=False,
    ),
    "Longpages": Report(
        lambda: sa.select(
            P.c.page_namespace.label("namespace"),
            P.c.page_title.label("title"),
            P.c.page_len.label("value"),
        ).where(_articles())
    ),
    "MediaStatistics": Report(_media_statistics),
    "Mostcategories": Report(
        lambda: (
            sa.select(
                P.c.page_namespace.label("namespace"),
                P.c.page_title.label("title"),
                sa.func.count().label("value"),
            )
            .select_from(P.join(CL, CL.c.cl_from == P.c.page_id))
            .where(_articles())
            .group_by(P.c.page_namespace, P.c.page_title)
            .having(sa.func.count() > 1)
        )
    ),
    "Mostimages": Report(lambda: _counted(IL, None, "il_to", having=1, ns_value=NS_FILE)),
    "Mostinterwikis": Report(
        lambda: (
            sa.select(
                P.c.page_namespace.label("namespace"),
                P.c.page_title.label("title"),
                sa.func.count().label("value"),
            )
            .select_from(P.join(LL, LL.c.ll_from == P.c.page_id))
            .group_by(P.c.page_namespace, P.c.page_title)
            .having(sa.func.count() > 1)
        )
    ),
    "Mostlinked": Report(_mostlinked),
    "Mostlinkedcategories": Report(
        lambda: sa.select(
            sa.literal(NS_CATEGORY).label("namespace"),
            CL.c.cl_to.label("title"),
            sa.func.count().label("value"),
        ).group_by(CL.c.cl_to)
    ),
    "Mostlinkedtemplates": Report(lambda: _counted(TL, "tl_namespace", "tl_title")),
    "Mostrevisions": Report(lambda: _revision_counts(1)),
    "Shortpages": Report(
        lambda: sa.select(
            P.c.page_namespace.label("namespace"),
            P.c.page_title.label("title"),
            P.c.page_len.label("value"),
        ).where(_articles()),
        descending=False,
    ),
    "Uncategorizedcategories": Report(
        lambda: _pages(_no_rows(CL, "cl_from"), NS_CATEGORY), by_value=False, descending=False
    ),
    "Uncategorizedimages": Report(
        lambda: _pages(_no_rows(CL, "cl_from"), NS_FILE), by_value=False, descending=False
    ),
    "Uncategorizedpages": Report(
        lambda: _pages(_no_rows(CL, "cl_from"), CONTENT), by_value=False, descending=False
    ),
    "Uncategorizedtemplates": Report(
        lambda: _pages(_no_rows(CL, "cl_from"), NS_TEMPLATE), by_value=False, descending=False
    ),
    "Unusedcategories": Report(
        lambda: _pages(~sa.exists().where(CL.c.cl_to == P.c.page_title), NS_CATEGORY),
        by_value=False,
        descending=False,
    ),
    "Unusedimages": Report(
        lambda: sa.select(
            sa.literal(NS_FILE).label("namespace"),
            IMG.c.img_name.label("title"),
            IMG.c.img_timestamp.label("value"),
        ).where(~sa.exists().where(IL.c.il_to == IMG.c.img_name)),
        descending=False,
        timestamps=True,
    ),
    "Unusedtemplates": Report(
        lambda: _pages(
            ~sa.exists().where(TL.c.tl_namespace == NS_TEMPLATE, TL.c.tl_title == P.c.page_title),
            NS_TEMPLATE,
        ),
        by_value=False,
        descending=False,
    ),
    "Unwatchedpages": Report(
        lambda: sa.select(
            P.c.page_namespace.label("namespace"), P.c.page_title.label("title")
        ).where(
            P.c.page_namespace != NS_MEDIAWIKI,
            P.c.page_is_redirect == sa.false(),
            ~sa.exists().where(
                WL.c.wl_namespace == P.c.page_namespace, WL.c.wl_title == P.c.page_title
            ),
        ),
        by_value=False,
        descending=False,
        right="unwatchedpages",
    ),
    "Wantedcategories": Report(lambda: _wanted(CL, None, "cl_to", NS_CATEGORY)),
    "Wantedfiles": Report(
        lambda: (
            sa.select(
                sa.literal(NS_FILE).label("namespace"),
                IL.c.il_to.label("title"),
                sa.func.count().label("value"),
            )
            .where(~sa.exists().where(IMG.c.img_name == IL.c.il_to))
            .group_by(IL.c.il_to)
        )
    ),
    "Wantedpages": Report(lambda: _wanted(PL, "pl_namespace", "pl_title")),
    "Wantedtemplates": Report(lambda: _wanted(TL, "tl_namespace", "tl_title")),
    "Withoutinterwiki": Report(
        lambda: _pages(_no_rows(LL, "ll_from"), CONTENT), by_value=False, descending=False
    ),
}


def report_rows(conn: Conn, name: str, offset: int, limit: int) -> list[Row]:
    """Up to `limit` + 1 rows of a report from `offset` (the extra row says there are more)."""
    report = REPORTS[name]
    sub = report.build().subquery()
    keys: list[Any] = [sub.c.namespace, sub.c.title]
    if report.by_value:
        value = sub.c.value
        keys = [value.desc() if report.descending else value.asc(), *keys]
    # A negative offset reads from the start (SQLite's OFFSET takes it so; PostgreSQL refuses).
    query = sa.select(sub).order_by(*keys).offset(max(offset, 0)).limit(limit + 1)
    return conn.all(query)
