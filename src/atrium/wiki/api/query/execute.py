"""`action=query`: the page set (titles/pageids/revids/generator), module dispatch, continuation.

Order of work, as in MediaWiki's ApiQuery: the query parameters, then the modules named by `prop`,
`list` and `meta` (unknown names are dropped with a warning), the page set (a generator runs first),
every module in turn, then the general page information (normalized, redirects, missing, invalid,
pages) and the `continue` / `batchcomplete` members.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    BOOLEAN,
    INTEGER,
    ModuleSpec,
    Param,
    enum,
)
from atrium.wiki.api.query.modules import RUNNABLE
from atrium.wiki.api.query.pageset import (
    Continuation,
    InvalidPage,
    MissingPage,
    PageRow,
    PageSet,
    QueryModule,
    QueryRun,
)
from atrium.wiki.dump import export_pages
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.titles import NS_MEDIA, NS_SPECIAL, InvalidTitle


@contextmanager
def _naming_module(spec: ModuleSpec) -> Iterator[None]:
    """Errors raised by shared helpers without a module are the running module's."""
    try:
        yield
    except ApiUsageError as exc:
        if exc.module is None:
            exc.module = spec.path
        raise


def _names(group: str) -> tuple[str, ...]:
    return tuple(sorted(name for name, m in RUNNABLE.items() if m.spec.group == group))


def _submodules(names: tuple[str, ...]) -> dict[str, str]:
    return {name: f"query+{name}" for name in names}


def build_query_spec() -> ModuleSpec:
    props, lists, metas = _names("prop"), _names("list"), _names("meta")
    generators = tuple(sorted(n for n, m in RUNNABLE.items() if m.generate is not None))
    return ModuleSpec(
        "query",
        "ApiQuery",
        "action",
        "",
        (
            Param("prop", enum(*props), multi=True, submodules=_submodules(props)),
            Param("list", enum(*lists), multi=True, submodules=_submodules(lists)),
            Param("meta", enum(*metas), multi=True, submodules=_submodules(metas)),
            Param("indexpageids", BOOLEAN),
            Param("export", BOOLEAN),
            Param("exportnowrap", BOOLEAN),
            Param("exportschema", enum("0.10", "0.11"), default="0.11"),
            Param("iwurl", BOOLEAN),
            Param("continue"),
            Param("rawcontinue", BOOLEAN),
            Param("titles", multi=True),
            Param("pageids", INTEGER, multi=True),
            Param("revids", INTEGER, multi=True),
            Param(
                "generator",
                enum(*generators),
                submodules=_submodules(generators),
                submoduleparamprefix="g",
                # ApiQuery looks the generator up itself: an unknown one is `badgenerator`.
                checked_by_module=True,
            ),
            Param("redirects", BOOLEAN),
            # Accepted and without effect: it converts titles between the variants of the
            # content language, and English (the only content language here) has no variants,
            # so MediaWiki 1.39 changes nothing and never answers a `converted` list either.
            Param("converttitles", BOOLEAN),
        ),
        helpurls=(
            "https://www.mediawiki.org/wiki/Special:MyLanguage/API:Query",
            "https://www.mediawiki.org/wiki/Special:MyLanguage/API:Meta",
            "https://www.mediawiki.org/wiki/Special:MyLanguage/API:Properties",
            "https://www.mediawiki.org/wiki/Special:MyLanguage/API:Lists",
        ),
    )


QUERY = build_query_spec()


async def execute(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    generator_name: str | None = params["generator"]
    if generator_name is not None and (
        generator_name not in RUNNABLE or RUNNABLE[generator_name].generate is None
    ):
        raise ApiUsageError(
            "badgenerator",
            msg.api("apierror-badgenerator-unknown", msg.plain(generator_name)),
            module="query",
        )
    sources = [name for name in ("titles", "pageids", "revids") if params[name]]
    if generator_name is None and len(sources) > 1:
        raise ApiUsageError(
            "multisource",
            msg.api("apierror-invalidparammix-cannotusewith", sources[1], sources[0]),
            module="query",
        )
    continuation = Continuation(
        params["continue"], generator_name is not None, dict(ctx.params.raw)
    )
    run = QueryRun(ctx, PageSet(), continuation)
    modules: list[QueryModule] = [
        RUNNABLE[n] for n in params["prop"] + params["list"] + params["meta"]
    ]

    continuation.set_modules(
        [m.spec.name for m in modules], {m.spec.name for m in modules if m.spec.group == "prop"}
    )

    if generator_name is not None:
        if not continuation.generator_done:
            await _generate(run, RUNNABLE[generator_name], params)
        for extra in sources:
            ctx.params.used.add(extra)
    elif not continuation.generator_done:
        await _resolve(run, params)

    for module in modules:
        name = module.spec.name
        if not continuation.should_run(name):
            ctx.read(module.spec)
            if module.spec.group != "prop":
                continuation.skipped.append(name)
            continue
        module_params = ctx.read(module.spec)
        with _naming_module(module.spec):
            await module.run(run, module_params)
        if module.spec.group != "prop":
            continuation.ran.append(name)

    result: dict[str, Any] = {}
    _general_page_info(run, params)
    if params["export"]:
        await _export(run, params)
    cont = continuation.result(params["rawcontinue"], generator_name)
    if not params["rawcontinue"] and continuation.batch_complete:
        ctx.out.flag_if(result, "batchcomplete", True)
    result.update(cont)
    result.update(run.root)
    if run.data:
        result["query"] = run.data
    return result


async def _generate(run: QueryRun, module: QueryModule, query_params: dict[str, Any]) -> None:
    ctx = run.ctx
    gen_params = ctx.read(module.spec, "g")
    if module.check_generator is not None:
        module.check_generator(run, gen_params | {"redirects": query_params["redirects"]})
    assert module.generate is not None
    # A prop module used as a generator works on the pages given by titles/pageids/revids.
    if module.spec.group == "prop":
        run.pages = await _base_pages(run, query_params)
    with _naming_module(module.spec):
        generated = await module.generate(run, gen_params)
    run.pages = PageSet()
    rows = await ctx.db.read(page_reads.pages_by_ids, generated.page_ids)
    _add_rows(run.pages, rows)
    if generated.titles:
        await _add_titles(run.pages, ctx, generated.titles)
    if generated.revids:
        await _add_revisions(run.pages, ctx, generated.revids)
    run.pages.extra.update(generated.extra)
    if query_params["redirects"]:
        await _follow_redirects(run)


async def _add_titles(pages: PageSet, ctx: ApiContext, titles: list[tuple[int, str]]) -> None:
    """Titles join the set: existing pages as good ones, the others as missing."""
    _add_rows(pages, await ctx.db.read(page_reads.pages_by_titles, titles))
    known = {(p.ns, p.dbkey) for p in pages.good.values()}
    known |= {(m.ns, m.dbkey) for m in pages.missing}
    for ns, dbkey in titles:
        if (ns, dbkey) not in known:
            known.add((ns, dbkey))
            pages.missing.append(MissingPage(ns, dbkey, pages.fake_id()))


async def _add_revisions(pages: PageSet, ctx: ApiContext, revids: list[int]) -> None:
    """Revision ids (the `revids` parameter or a generator's) bring their pages into the set, as
    PageSet::initFromRevIDs: live revisions their page; for a caller with `deletedhistory`,
    deleted ones (`archive`) their title, good or missing; the rest are `badrevids`."""
    wanted = list(dict.fromkeys(revids))
    rev_rows = await ctx.db.read(page_reads.pages_of_revisions, wanted)
    page_of = {int(r["rev_id"]): int(r["rev_page"]) for r in rev_rows}
    pages.revids.update({rev: page_of[rev] for rev in wanted if rev in page_of})
    unseen = sorted(set(page_of.values()) - set(pages.good))
    _add_rows(pages, await ctx.db.read(page_reads.pages_by_ids, unseen))
    remaining = [rev for rev in wanted if rev not in page_of]
    if remaining and ctx.caller.allowed("deletedhistory"):
        rows = await ctx.db.read(page_reads.archived_titles_of_revisions, remaining)
        archived = {int(r["ar_rev_id"]): (int(r["ar_namespace"]), str(r["ar_title"])) for r in rows}
        await _add_titles(pages, ctx, list(dict.fromkeys(archived.values())))
        pages.deleted_revids.update(archived)
        remaining = [rev for rev in remaining if rev not in archived]
    pages.bad_revids.extend(remaining)


async def _base_pages(run: QueryRun, query_params: dict[str, Any]) -> PageSet:
    saved = run.pages
    run.pages = PageSet()
    await _resolve(run, query_params | {"redirects": False})
    base = run.pages
    run.pages = saved
    return base


def _row(row: Any) -> PageRow:
    return PageRow(
        page_id=int(row["page_id"]),
        ns=int(row["page_namespace"]),
        dbkey=str(row["page_title"]),
        is_redirect=bool(row["page_is_redirect"]),
        is_new=bool(row["page_is_new"]),
        touched=str(row["page_touched"]),
        latest=int(row["page_latest"]),
        length=int(row["page_len"]),
        content_model=str(row["page_content_model"]),
    )


def _add_rows(pages: PageSet, rows: list[Any]) -> None:
    for row in rows:
        page = _row(row)
        pages.good[page.page_id] = page


async def _resolve(run: QueryRun, params: dict[str, Any]) -> None:
    ctx = run.ctx
    pages = run.pages
    parser = ctx.site.parser
    wanted: list[tuple[int, str]] = []
    specials: list[tuple[int, str]] = []
    for text in params["titles"]:
        try:
            title = parser.parse(text)
        except InvalidTitle as exc:
            reason = msg.invalid_title(exc.key, exc.params, exc.title)
            pages.invalid.append(
                InvalidPage(text, await ctx.format_message(reason), pages.fake_id())
            )
            continue
        if title.interwiki:
            pages.interwiki.append((text, title.interwiki))
            continue
        if not title.dbkey:
            reason = msg.invalid_title("title-invalid-empty", (), text.replace(" ", "_"))
            pages.invalid.append(
                InvalidPage(text, await ctx.format_message(reason), pages.fake_id())
            )
            continue
        shown = parser.prefixed_text(title.ns, title.dbkey)
        if shown != text:
            pages.normalized.append((text, shown))
        key = (title.ns, title.dbkey)
        if title.ns in (NS_SPECIAL, NS_MEDIA):
            if key not in specials:
                specials.append(key)
        elif key not in wanted:
            wanted.append(key)
    # Never looked up: numbered after the invalid titles, before the missing ones.
    special_pages = [MissingPage(*key, pages.fake_id(), special=True) for key in specials]
    if wanted:
        rows = await ctx.db.read(page_reads.pages_by_titles, wanted)
        _add_rows(pages, rows)
        found = {(p.ns, p.dbkey) for p in pages.good.values()}
        # MediaWiki's link batch holds the titles by namespace (in the order each namespace
        # first appears): the missing ones are numbered in that order.
        by_ns: dict[int, int] = {}
        for ns, _dbkey in wanted:
            by_ns.setdefault(ns, len(by_ns))
        for ns, dbkey in sorted(wanted, key=lambda w: by_ns[w[0]]):
            if (ns, dbkey) not in found:
                pages.missing.append(MissingPage(ns, dbkey, pages.fake_id()))
    pages.missing += special_pages
    if params["pageids"]:
        ids = list(dict.fromkeys(params["pageids"]))
        rows = await ctx.db.read(page_reads.pages_by_ids, ids)
        _add_rows(pages, rows)
        pages.missing_ids = [i for i in ids if i not in pages.good]
    if params["revids"]:
        await _add_revisions(pages, ctx, list(params["revids"]))
    if params["redirects"]:
        await _follow_redirects(run)


async def _follow_redirects(run: QueryRun) -> None:
    """Replace redirect pages by their targets (one level, as MediaWiki resolves per batch)."""
    ctx = run.ctx
    pages = run.pages
    parser = ctx.site.parser
    for _ in range(5):
        redirects = [p for p in pages.sorted_good() if p.is_redirect]
        if not redirects:
            return
        targets = await ctx.db.read(page_reads.redirect_targets, [p.page_id for p in redirects])
        by_from = {int(t["rd_from"]): t for t in targets}
        wanted: list[tuple[int, str]] = []
        for page in redirects:
            target = by_from.get(page.page_id)
            if target is None:
                continue
            del pages.good[page.page_id]
            entry: dict[str, Any] = {
                "from": parser.prefixed_text(page.ns, page.dbkey),
                "to": parser.prefixed_text(int(target["rd_namespace"]), str(target["rd_title"])),
            }
            if target["rd_fragment"]:
                entry["tofragment"] = target["rd_fragment"]
            if target["rd_interwiki"]:
                entry["tointerwiki"] = target["rd_interwiki"]
            pages.redirects.append(entry)
            if not target["rd_interwiki"]:
                wanted.append((int(target["rd_namespace"]), str(target["rd_title"])))
        if not wanted:
            return
        rows = await ctx.db.read(page_reads.pages_by_titles, wanted)
        found = set()
        for row in rows:
            page = _row(row)
            found.add((page.ns, page.dbkey))
            pages.good[page.page_id] = page
        for ns, dbkey in wanted:
            if (ns, dbkey) not in found and not any(
                m.ns == ns and m.dbkey == dbkey for m in pages.missing
            ):
                pages.missing.append(MissingPage(ns, dbkey, pages.fake_id()))


async def _export(run: QueryRun, params: dict[str, Any]) -> None:
    """`export`: the current revisions of the good pages as XML (`exportschema` 0.10 or 0.11),
    under `query.export` (`{"*": xml}` in formatversion 1), or alone with `exportnowrap`."""
    ctx = run.ctx
    ids = [page.page_id for page in run.pages.sorted_good()]
    xml = await ctx.db.read(export_pages, ctx.site, ids, params["exportschema"])
    if params["exportnowrap"]:
        ctx.raw_body = (xml.encode(), "text/xml; charset=utf-8")
        return
    if ctx.out.fv >= 2:
        run.data["export"] = xml
    else:
        run.data["export"] = {"*": xml}


def _general_page_info(run: QueryRun, params: dict[str, Any]) -> None:
    ctx = run.ctx
    out = ctx.out
    pages = run.pages
    data = run.data
    parser = ctx.site.parser
    if pages.normalized:
        data["normalized"] = [
            ({"fromencoded": False} if out.fv >= 2 else {}) | {"from": a, "to": b}
            for a, b in pages.normalized
        ]
    if pages.redirects:
        data["redirects"] = pages.redirects
    if pages.interwiki:
        data["interwiki"] = [
            {"title": t, "iw": iw}
            | ({"url": ctx.site.interwiki_url(iw, t)} if params["iwurl"] else {})
            for t, iw in pages.interwiki
        ]
    if pages.bad_revids:
        bad: dict[str, Any] = {}
        for rev in pages.bad_revids:
            entry: dict[str, Any] = {"revid": rev}
            out.flag_if(entry, "missing", True)
            bad[str(rev)] = entry
        # An object keyed by revision id in both formatversions, as MediaWiki 1.39 answers.
        data["badrevids"] = bad
    entries: list[tuple[int, dict[str, Any]]] = []
    # ApiPageSet's order: missing titles, invalid ones, then special pages.
    for missing in [m for m in pages.missing if not m.special]:
        entry = {"ns": missing.ns, "title": parser.prefixed_text(missing.ns, missing.dbkey)}
        out.flag_if(entry, "missing", True)
        entry.update(run.page_data.get(missing.fake_id, {}))
        entries.append((missing.fake_id, entry))
    for invalid in pages.invalid:
        entry = {"title": invalid.title, "invalidreason": invalid.reason}
        out.flag_if(entry, "invalid", True)
        entries.append((invalid.fake_id, entry))
    for missing in [m for m in pages.missing if m.special]:
        entry = {"ns": missing.ns, "title": parser.prefixed_text(missing.ns, missing.dbkey)}
        out.flag_if(entry, "special", True)
        out.flag_if(entry, "missing", True)
        entry.update(run.page_data.get(missing.fake_id, {}))
        entries.append((missing.fake_id, entry))
    for page_id in pages.missing_ids:
        entry = {"pageid": page_id}
        out.flag_if(entry, "missing", True)
        entries.append((page_id, entry))
    for page in pages.sorted_good():
        entry = {
            "pageid": page.page_id,
            "ns": page.ns,
            "title": parser.prefixed_text(page.ns, page.dbkey),
        }
        entry.update(pages.extra.get(page.page_id, {}))
        entry.update(run.page_data.get(page.page_id, {}))
        entries.append((page.page_id, entry))
    if entries:
        if params["indexpageids"]:
            data["pageids"] = [str(key) for key, _ in entries]
        if out.fv >= 2:
            # formatversion=2 lists the pages in key order (fake ids of missing and invalid
            # titles first); formatversion=1 keeps the order they were added in.
            data["pages"] = [entry for _, entry in sorted(entries, key=lambda e: e[0])]
        else:
            data["pages"] = {str(key): entry for key, entry in entries}
