"""`list=allpages`: pages of one namespace in title order; also a generator."""

from __future__ import annotations

from typing import Any

from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    INTEGER,
    NAMESPACE,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun, badcontinue
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import InvalidTitle


def _key(q: QueryRun, text: str | None, ns: int) -> str | None:
    """A title fragment as a database key of namespace `ns` (MediaWiki's titlePartToKey)."""
    if text is None:
        return None
    if text == "":
        return ""
    try:
        title = q.ctx.site.parser.parse(text, ns)
    except InvalidTitle:
        return text.replace(" ", "_")
    return title.dbkey if title.ns == ns else text.replace(" ", "_")


# All that the list and the generator give: read from the (namespace, title) index alone.
_COLUMNS = (schema.page.c.page_id, schema.page.c.page_title)


def _protection(params: dict[str, Any]) -> page_reads.ProtectionFilter | None:
    """The protection filter the parameters ask for: the level and cascade filters apply only
    with a type; the expiry filter alone also limits the list to protected pages."""
    types = params["prtype"]
    if not types and params["prexpiry"] == "all":
        if params["prlevel"]:
            raise ApiUsageError(
                "invalidparammix",
                msg.api("apierror-invalidparammix-mustusewith", "prlevel", "prtype"),
                module="query+allpages",
            )
        return None
    cascade = {"cascading": True, "noncascading": False}.get(params["prfiltercascade"])
    levels = tuple(level for level in params["prlevel"] or () if level not in ("", "*"))
    return page_reads.ProtectionFilter(
        types=tuple(types or ()),
        levels=levels if types else (),
        cascade=cascade if types else None,
        expiry=None if params["prexpiry"] == "all" else params["prexpiry"],
        now=now14(),
    )


async def _fetch(q: QueryRun, params: dict[str, Any]) -> tuple[list[tuple[int, str]], str | None]:
    """(page id, title key) of the namespace's pages in order, and the key to continue from."""
    ns = params["namespace"]
    descending = params["dir"] == "descending"
    start = _key(q, params["from"], ns)
    cont = params["continue"]
    if cont is not None:
        try:
            parsed = q.ctx.site.parser.parse(cont, ns)
        except InvalidTitle as exc:
            raise badcontinue() from exc
        start = parsed.dbkey if parsed.ns == ns else cont
    prefix = _key(q, params["prefix"], ns)
    protection = _protection(params)
    limit = params["limit"]
    end = _key(q, params["to"], ns)
    rows = await q.ctx.db.read(
        lambda conn: page_reads.allpages(
            conn,
            ns,
            start=start,
            end=end,
            prefix=prefix,
            descending=descending,
            limit=limit + 1,
            filterredir=params["filterredir"],
            minsize=params["minsize"],
            maxsize=params["maxsize"],
            columns=_COLUMNS,
            protection=protection,
        )
    )
    following = None
    if len(rows) > limit:
        following = str(rows[limit][1])
        rows = rows[:limit]
    return rows, following


ALLPAGES = ModuleSpec(
    "allpages",
    "ApiQueryAllPages",
    "list",
    "ap",
    (
        Param("from"),
        Param("continue"),
        Param("to"),
        Param("prefix"),
        Param("namespace", NAMESPACE, default=0),
        Param("filterredir", enum("all", "redirects", "nonredirects"), default="all"),
        Param("minsize", INTEGER),
        Param("maxsize", INTEGER),
        Param("prtype", enum("edit", "move", "upload"), multi=True),
        Param("prlevel", enum("", "autoconfirmed", "sysop"), multi=True),
        Param("prfiltercascade", enum("all", "cascading", "noncascading"), default="all"),
        limit(default=10),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        Param("filterlanglinks", enum("all", "withlanglinks", "withoutlanglinks"), default="all"),
        Param("prexpiry", enum("all", "definite", "indefinite"), default="all"),
    ),
    generator=True,
)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, following = await _fetch(q, params)
    ns = params["namespace"]
    prefix = q.ctx.site.namespaces.prefix(ns)
    # Every row is of namespace `ns`: its title is the prefix and the key with spaces.
    q.data["allpages"] = [
        {"pageid": page_id, "ns": ns, "title": prefix + key.replace("_", " ")}
        for page_id, key in rows
    ]
    if following is not None:
        q.continuation.add(ALLPAGES, "continue", following)


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, following = await _fetch(q, params)
    if following is not None:
        q.continuation.add_generator(ALLPAGES, "continue", following)
    return GeneratedPages(page_ids=[page_id for page_id, _key in rows])


def check_generator(q: QueryRun, params: dict[str, Any]) -> None:
    # ApiQueryAllPages refuses to generate while redirects are resolved, whatever the filter
    # (its message suggests `nonredirects`, which it refuses as well).
    if params["redirects"]:
        raise ApiUsageError(
            "params",
            msg.api("apierror-allpages-generator-redirects"),
            module="query+allpages",
        )


MODULE = QueryModule(ALLPAGES, run, generate, check_generator)
