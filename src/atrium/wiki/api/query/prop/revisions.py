"""`prop=revisions`: revisions of the page set in MediaWiki 1.39's three modes — one page's history
with limits, ranges and continuation (enumeration mode), the requested `revids`, or the latest
revision of every page (multi-page mode, `rvlimit` at its maximum, continued by `page|revision`) —
with the deprecated content options: `diffto`/`difftotext` (the diff table), `expandtemplates`,
`parse`, `generatexml`/`parsetree` and `contentformat`."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from atrium.wiki import content_models
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    INT64_MAX,
    INT64_MIN,
    INTEGER,
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
from atrium.wiki.api.query.revision_params import revision_params
from atrium.wiki.changes.pages import split_sections
from atrium.wiki.diff import table_rows
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import page_view as reading
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.reads import parsing
from atrium.wiki.reads import revisions as revreads
from atrium.wiki.reads.pst_inputs import transform_for_save
from atrium.wiki.reads.visibility import user_can_bitfield
from atrium.wiki.timestamps import iso
from atrium.wiki.titles import Title
from atrium.wiki.wikitext.expand import expand_text
from atrium.wiki.wikitext.preprocess import preprocess, source, to_xml

_SINGLE_PAGE = ("limit", "startid", "endid", "user", "excludeuser", "start", "end")
_MODULE = "query+revisions"
# The options that the slot output refuses (they only exist in the legacy output).
_LEGACY_ONLY = (
    "expandtemplates",
    "generatexml",
    "parse",
    "diffto",
    "difftotext",
    "difftotextpst",
    "contentformat",
)
_WIKITEXT_FORMATS = ("text/x-wiki",)
_LIMIT_SMALL, _LIMIT_SMALL_HIGH = 50, 500
_LIMIT_BIG, _LIMIT_BIG_HIGH = 500, 5000
_MAX_UNCACHED_DIFFS = 1  # $wgAPIMaxUncachedDiffs


# rev_deleted bits (MediaWiki's RevisionRecord::DELETED_*).
_DELETED_TEXT, _DELETED_COMMENT, _DELETED_USER, _DELETED_RESTRICTED = 1, 2, 4, 8


def _visible(q: QueryRun, deleted: int) -> Callable[[int], bool]:
    """Whether the caller may see a hidden field: `deletedhistory` (`deletedtext` for the text),
    or `suppressrevision` / `viewsuppressed` when the revision is suppressed."""
    rights = q.ctx.caller.rights

    def can_see(bit: int) -> bool:
        return user_can_bitfield(deleted, bit, rights)

    return can_see


def _hidden_user_bits(q: QueryRun) -> int:
    """ApiQueryRevisions' guard against finding a hidden author by searching (T19342): the
    `rev_deleted` bits that keep a revision out of a `user` / `excludeuser` search."""
    caller = q.ctx.caller
    if not caller.allowed("deletedhistory"):
        return _DELETED_USER
    if not (caller.allowed("suppressrevision") or caller.allowed("viewsuppressed")):
        return _DELETED_USER | _DELETED_RESTRICTED
    return 0


def _sha1_hex(base36: str) -> str:
    return f"{int(base36, 36):040x}"


REVISIONS = ModuleSpec(
    "revisions",
    "ApiQueryRevisions",
    "prop",
    "rv",
    (
        *revision_params(limit_info=(("singlepageonly", None),)),
        Param("startid", INTEGER, info=(("singlepageonly", None),)),
        Param("endid", INTEGER, info=(("singlepageonly", None),)),
        Param("start", TIMESTAMP, info=(("singlepageonly", None),)),
        Param("end", TIMESTAMP, info=(("singlepageonly", None),)),
        Param("dir", enum("newer", "older"), default="older", info=(("singlepageonly", None),)),
        Param(
            "user",
            USER,
            subtypes=("name", "ip", "interwiki", "id"),
            info=(("singlepageonly", None),),
        ),
        Param(
            "excludeuser",
            USER,
            subtypes=("name", "ip", "interwiki", "id"),
            info=(("singlepageonly", None),),
        ),
        Param("tag"),
        Param("token", enum("rollback"), multi=True, deprecated=True),
        Param("continue"),
    ),
    generator=True,
)


@dataclass
class _Options:
    """ApiQueryRevisionsBase::parseParameters: what to fetch and how to show the content."""

    props: set[str]
    slots: list[str] | None
    section: str | None
    fetch_content: bool
    diffto: str | int | None = None  # "prev", "next" or a revision id (0: the current one)
    difftotext: str | None = None
    difftotextpst: bool = False
    contentformat: str | None = None
    expandtemplates: bool = False
    generatexml: bool = False
    parse: bool = False
    uncached_diffs: int = 0
    spec: ModuleSpec = REVISIONS
    # Archived revisions (prop=deletedrevisions): DifferenceEngine looks revisions up in
    # `revision` only, so a diff *to* another revision never loads and its body is false.
    archived: bool = False


def _cannot_use_with(spec: ModuleSpec, name: str) -> ApiUsageError:
    slots = f"{spec.prefix}slots"
    return ApiUsageError(
        "invalidparammix",
        msg.api("apierror-invalidparammix-cannotusewith", name, slots),
        module=spec.path,
    )


async def parse_options(
    q: QueryRun, params: dict[str, Any], spec: ModuleSpec = REVISIONS
) -> _Options:
    """ApiQueryRevisionsBase::parseParameters, shared by `revisions` and `deletedrevisions`
    (`spec` gives the prefix the messages name)."""
    ctx = q.ctx
    p = spec.prefix
    props = set(params["prop"])
    slots: list[str] | None = params["slots"] if ctx.params.has(f"{p}slots") else None
    if slots is not None:
        if "parsetree" in props:
            raise _cannot_use_with(spec, f"{p}prop=parsetree")
        for name in _LEGACY_ONLY:
            if params[name] is not None and params[name] is not False:
                raise _cannot_use_with(spec, p + name)
    opts = _Options(
        props,
        slots,
        None,
        False,
        contentformat=params["contentformat"] or None,
        spec=spec,
        archived=spec is not REVISIONS,
    )
    if params["difftotext"] is not None:
        opts.difftotext = params["difftotext"]
        opts.difftotextpst = bool(params["difftotextpst"])
    elif params["diffto"] is not None:
        value = "0" if params["diffto"] == "cur" else params["diffto"]
        if not value.isdigit() and value not in ("prev", "next"):
            raise ApiUsageError(
                "diffto",
                msg.api("apierror-baddiffto", p),
                module=spec.path,
            )
        diffto: str | int | None = int(value) if value.isdigit() else value
        if isinstance(diffto, int) and diffto != 0:
            # PHP's intval saturates an id past 64 bits, which then names no revision.
            in_range = diffto <= INT64_MAX
            row = await ctx.db.read(revreads.revision_text, diffto) if in_range else None
            if row is None:
                raise ApiUsageError(
                    "nosuchrevid", msg.api("apierror-nosuchrevid", diffto), module=spec.path
                )
            if not _visible(q, int(row["rev_deleted"] or 0))(_DELETED_TEXT):
                ctx.warn(
                    spec,
                    "difftohidden",
                    msg.api("apiwarn-difftohidden", diffto),
                )
                diffto = None
        opts.diffto = diffto
    opts.fetch_content = (
        "content" in props
        or opts.diffto is not None
        or opts.difftotext is not None
        or "parsetree" in props
    )
    if opts.fetch_content:
        opts.expandtemplates = bool(params["expandtemplates"])
        opts.generatexml = bool(params["generatexml"])
        opts.parse = bool(params["parse"])
        opts.section = params["section"]
    opts.slots = slots
    need_slots = opts.fetch_content or bool(props & {"contentmodel", "slotsize", "slotsha1"})
    if need_slots and slots is None:
        ctx.warn(spec, "deprecation", msg.api("apiwarn-deprecation-missingparam", f"{p}slots"))
        ctx.params.note_deprecation()
    return opts


def _limit(q: QueryRun, params: dict[str, Any], opts: _Options, enum_mode: bool) -> int:
    high = q.ctx.caller.allowed("apihighlimits")
    if opts.parse:
        user_max = bot_max = 1
    elif opts.fetch_content:
        user_max, bot_max = _LIMIT_SMALL, _LIMIT_SMALL_HIGH
    else:
        user_max, bot_max = _LIMIT_BIG, _LIMIT_BIG_HIGH
    ceiling = bot_max if high else user_max
    if not enum_mode:
        return ceiling
    raw = q.ctx.params.get_raw("rvlimit")
    if raw == "max":
        q.ctx.params.limits_used[REVISIONS.name] = ceiling
        return ceiling
    value = params["limit"]
    if value is None:
        return 1 if opts.parse else 10
    if value > ceiling:
        q.ctx.warn(
            REVISIONS,
            "outofrange",
            msg.outofrange("rvlimit", str(value), 1, ceiling, user_max, bot_max),
        )
        return ceiling
    return int(value)


def _revision(
    q: QueryRun,
    row: Any,
    opts: _Options,
    tags: dict[int, list[str]],
    extra: dict[str, Any],
) -> dict[str, Any]:
    out = q.ctx.out
    props, slots, section = opts.props, opts.slots, opts.section
    rev: dict[str, Any] = {}
    if "ids" in props:
        rev["revid"] = int(row["rev_id"])
        rev["parentid"] = int(row["rev_parent_id"])
    if "flags" in props:
        out.flag(rev, "minor", bool(row["rev_minor_edit"]))
    deleted = int(row["rev_deleted"] or 0)
    can_see = _visible(q, deleted)
    if deleted & _DELETED_USER and props & {"user", "userid"}:
        out.flag_if(rev, "userhidden", True)
    if "user" in props and can_see(_DELETED_USER):
        rev["user"] = row["actor_name"]
        if row["actor_user"] is None:
            out.flag_if(rev, "anon", True)
    if "userid" in props and can_see(_DELETED_USER):
        rev["userid"] = int(row["actor_user"] or 0)
    if "timestamp" in props:
        rev["timestamp"] = iso(str(row["rev_timestamp"]))
    if "size" in props:
        rev["size"] = int(row["rev_len"])
    if "sha1" in props:
        if deleted & _DELETED_TEXT:
            out.flag_if(rev, "sha1hidden", True)
        if can_see(_DELETED_TEXT):
            rev["sha1"] = _sha1_hex(str(row["rev_sha1"]))
    if "roles" in props:
        rev["roles"] = ["main"]
    if deleted & _DELETED_COMMENT and props & {"comment", "parsedcomment"}:
        out.flag_if(rev, "commenthidden", True)
    if "comment" in props and can_see(_DELETED_COMMENT):
        rev["comment"] = row["comment_text"]
    if "parsedcomment" in props and can_see(_DELETED_COMMENT):
        rev["parsedcomment"] = html.escape(str(row["comment_text"]), quote=False)
    if "tags" in props:
        rev["tags"] = tags.get(int(row["rev_id"]), [])
    text = row.get("old_text")
    text_hidden = bool(deleted & _DELETED_TEXT)
    if text_hidden and not can_see(_DELETED_TEXT):
        text = None
    if text is not None and section is not None:
        parts = split_sections(str(text))
        if not section.isdigit() or int(section) >= len(parts):
            raise ApiUsageError(
                "nosuchsection",
                msg.api("apierror-nosuchsection", section),
                module=opts.spec.path,
            )
        text = parts[int(section)].rstrip("\n")
    content: dict[str, Any] = {}
    if "slotsize" in props:
        content["size"] = int(row["rev_len"])
    if "slotsha1" in props:
        if deleted & _DELETED_TEXT:
            out.flag_if(content, "sha1hidden", True)
        if can_see(_DELETED_TEXT):
            content["sha1"] = _sha1_hex(str(row["rev_sha1"]))
    if "contentmodel" in props or (slots is not None and "content" in props):
        content["contentmodel"] = row["rev_content_model"]
    if slots is not None and "content" in props:
        content["contentformat"] = row["rev_content_format"]
    if opts.fetch_content and text_hidden:
        out.flag_if(content, "texthidden", True)
    # `suppressed` goes with a field shown as hidden, not with a revision asked only for ids.
    any_hidden = (
        bool(deleted & _DELETED_USER and props & {"user", "userid"})
        or bool(deleted & _DELETED_COMMENT and props & {"comment", "parsedcomment"})
        or (text_hidden and bool(opts.fetch_content or props & {"sha1", "slotsha1"}))
    )
    if slots is not None:
        if "content" in props and text is not None:
            out.content(content, "content", text)
        if content:
            rev["slots"] = {"main": content}
    else:
        rev.update(content)
        if text is not None:
            rev.update(extra)
    if any_hidden and deleted & _DELETED_RESTRICTED:
        out.flag_if(rev, "suppressed", True)
    return rev


async def _expand(q: QueryRun, page: Title, text: str) -> str:
    stripped = source(preprocess(text), drop_comments=True)
    site = q.ctx.site

    def run(conn: Any) -> str:
        def loader(ns: int, dbkey: str) -> str | None:
            found = reading.current_text(conn, ns, dbkey)
            return found[2] if found else None

        return expand_text(stripped, site.parser, loader, (page.ns, page.dbkey))[0]

    return str(await q.ctx.db.read(run))


async def _parse(q: QueryRun, page: Title, text: str, model: str) -> str:
    """The revision rendered as its content model shows it."""
    rendered = await q.ctx.db.read_rendering(parsing.render_model, q.ctx.site, page, text, model)
    return str(rendered.html)


async def _diff(q: QueryRun, row: Any, text: str, opts: _Options) -> dict[str, Any]:
    if opts.uncached_diffs >= _MAX_UNCACHED_DIFFS:
        return {"notcached": True}
    db = q.ctx.db
    rev_id, page_id = int(row["rev_id"]), int(row["rev_page"])
    if opts.difftotext is not None:
        if opts.contentformat and opts.contentformat not in _WIKITEXT_FORMATS:
            _warn_badformat(q, opts.spec, page_id, opts.contentformat)
            return {"badcontentformat": True}
        other = opts.difftotext
        if opts.difftotextpst:
            other = await _pst(q, page_id, other)
        opts.uncached_diffs += 1
        return _body(q, {}, table_rows(text, other))
    if opts.archived:
        return _archived_diff(rev_id, opts.diffto)
    diff: dict[str, Any] = {}
    old_text: str | None
    new_text: str | None
    if opts.diffto == "prev":
        before = await db.read(
            revreads.neighbour, page_id, str(row["rev_timestamp"]), rev_id, False
        )
        diff["from"] = int(before["rev_id"]) if before is not None else False
        diff["to"] = rev_id
        if before is None:
            return _body(q, diff, "")
        old_id, new_id = int(before["rev_id"]), rev_id
        old_text, new_text = _text_of(q, before), text
    elif opts.diffto == "next":
        after = await db.read(revreads.neighbour, page_id, str(row["rev_timestamp"]), rev_id, True)
        diff["from"] = rev_id
        diff["to"] = int(after["rev_id"]) if after is not None else 0
        if after is None:
            return _body(q, diff, "")
        old_id, new_id = rev_id, int(after["rev_id"])
        old_text, new_text = text, _text_of(q, after)
    else:
        assert isinstance(opts.diffto, int)
        diff["from"] = rev_id
        diff["to"] = opts.diffto
        target = (
            await db.read(revreads.latest_text, page_id)
            if opts.diffto == 0
            else await db.read(revreads.revision_text, opts.diffto)
        )
        if target is None:
            return _body(q, diff, "")
        old_id, new_id = rev_id, int(target["rev_id"])
        old_text, new_text = text, _text_of(q, target)
    if old_id == new_id:
        return _body(q, diff, "")
    if old_text is None or new_text is None:
        q.ctx.out.content(diff, "body", False)
        return diff
    opts.uncached_diffs += 1
    return _body(q, diff, table_rows(old_text, new_text))


def _bc_bools(q: QueryRun, diff: dict[str, Any]) -> dict[str, Any]:
    """ApiResult's formatversion 1 booleans: true shown as "", false left out."""
    if q.ctx.out.fv >= 2:
        return diff
    return {k: "" if v is True else v for k, v in diff.items() if v is not False}


async def _pst(q: QueryRun, page_id: int, text: str) -> str:
    """The pre-save transform of `difftotext`, for the caller on the revision's page."""
    title = _page_title(q, page_id) or Title(0, "")
    caller = q.ctx.caller
    parser = q.ctx.site.parser
    user_id = caller.id if caller.registered else None
    return str(
        await q.ctx.db.read(
            lambda conn: transform_for_save(conn, parser, title, text, user_id, caller.name)
        )
    )


def _archived_diff(rev_id: int, diffto: str | int | None) -> dict[str, Any]:
    """DifferenceEngine for an archived revision: `mapDiffPrevNext` cannot find it (nor its
    neighbours) in `revision`, so `prev` has no old side, `next` points at the current revision
    (0), and the revisions never load: the body is false, as MediaWiki 1.39 answers."""
    if diffto == "prev":
        return {"from": False, "to": rev_id, "body": False}
    return {"from": rev_id, "to": 0 if diffto == "next" else diffto, "body": False}


def _page_title(q: QueryRun, key: int) -> Title | None:
    """The page of a result entry: a good page, or a missing one (an archived revision's)."""
    page = q.pages.good.get(key)
    if page is not None:
        return Title(page.ns, page.dbkey)
    for missing in q.pages.missing:
        if missing.fake_id == key:
            return Title(missing.ns, missing.dbkey)
    return None


def _page_name(q: QueryRun, key: int) -> str:
    title = _page_title(q, key)
    return q.ctx.site.parser.prefixed_text(title.ns, title.dbkey) if title else ""


def _text_of(q: QueryRun, row: Any) -> str | None:
    if not _visible(q, int(row["rev_deleted"] or 0))(_DELETED_TEXT):
        return None
    return str(row["old_text"])


def _body(q: QueryRun, diff: dict[str, Any], body: str) -> dict[str, Any]:
    q.ctx.out.content(diff, "body", body)
    return diff


def _warn_badformat(q: QueryRun, spec: ModuleSpec, page_id: int, fmt: str) -> None:
    name = _page_name(q, page_id)
    q.ctx.warn(
        spec,
        "badformat",
        msg.api(
            "apierror-badformat",
            fmt,
            "wikitext",
            name,
        ),
    )


async def _legacy_content(q: QueryRun, row: Any, text: str, opts: _Options) -> dict[str, Any]:
    """ApiQueryRevisionsBase::extractDeprecatedContent."""
    vals: dict[str, Any] = {}
    page_id = int(row["rev_page"])
    title = _page_title(q, page_id) or Title(0, "")
    props = opts.props
    if "parsetree" in props or ("content" in props and opts.generatexml):
        vals["parsetree"] = to_xml(preprocess(text))
    if "content" in props:
        shown: str | None = None
        if opts.expandtemplates and not opts.parse:
            shown = await _expand(q, title, text)
        if opts.parse:
            shown = await _parse(q, title, text, str(row["rev_content_model"]))
        if shown is None:
            fmt = opts.contentformat or str(row["rev_content_format"])
            # The one format the revision's model reads and writes.
            if fmt != content_models.format_of(str(row["rev_content_model"])):
                _warn_badformat(q, opts.spec, page_id, fmt)
                q.ctx.out.flag_if(vals, "badcontentformat", True)
            else:
                vals["contentformat"] = fmt
                vals["contentmodel"] = row["rev_content_model"]
                shown = text
        if shown is not None:
            q.ctx.out.content(vals, "content", shown)
    if opts.diffto is not None or opts.difftotext is not None:
        vals["diff"] = _bc_bools(q, await _diff(q, row, text, opts))
    return vals


def _enum_mode(params: dict[str, Any]) -> bool:
    return any(params[name] is not None for name in _SINGLE_PAGE) or params["dir"] == "newer"


def _check_mode(q: QueryRun, params: dict[str, Any]) -> bool:
    """Refuse the enumeration parameters with revids or several pages; True in enumeration
    mode."""
    enum_mode = _enum_mode(params)
    if enum_mode and q.pages.revision_count:
        raise ApiUsageError(
            "invalidparammix",
            msg.api("apierror-revisions-norevids", "rv"),
            module=_MODULE,
        )
    if enum_mode and len(q.pages.good) > 1:
        raise ApiUsageError(
            "invalidparammix", msg.api("apierror-revisions-singlepage", "rv"), module=_MODULE
        )
    return enum_mode


async def _rows(
    q: QueryRun, params: dict[str, Any], with_text: bool, limit: int, enum_mode: bool
) -> list[Any]:
    """The revisions to show, at most `limit`; the next one becomes `rvcontinue`."""
    ctx = q.ctx
    pages = q.pages
    tag: int | None = None
    if params["tag"] is not None:
        tag = await ctx.db.read(revreads.tag_id, params["tag"])
        if tag is None:
            return []
    cont_value = params["continue"]
    if enum_mode:
        if not pages.good:
            return []
        page = next(iter(pages.good.values()))
        cont = None
        if cont_value is not None:
            ts, _, rev = cont_value.partition("|")
            if not (len(ts) == 14 and ts.isdigit() and rev.isdigit()):
                raise badcontinue()
            cont = (ts, cont_int(rev))
        rows = await ctx.db.read(
            lambda conn: page_reads.page_history(
                conn,
                page.page_id,
                with_text=with_text,
                limit=limit + 1,
                newer=params["dir"] == "newer",
                start=params["start"],
                end=params["end"],
                startid=params["startid"],
                endid=params["endid"],
                cont=cont,
                user=params["user"],
                excludeuser=params["excludeuser"],
                tag_id=tag,
                hidden_user_bits=_hidden_user_bits(q),
            )
        )
        if len(rows) > limit:
            following = rows[limit]
            q.continuation.add(
                REVISIONS, "continue", f"{following['rev_timestamp']}|{following['rev_id']}"
            )
        return list(rows[:limit])
    if pages.revision_count:
        # Revision mode shows the live revisions asked for (deleted ones are for
        # prop=deletedrevisions).
        if not pages.revids:
            return []
        start = _php_int(cont_value) if cont_value is not None else None
        rows = await ctx.db.read(
            lambda conn: revreads.by_ids(
                conn, list(pages.revids), with_text=with_text, limit=limit + 1, cont=start, tag=tag
            )
        )
        if len(rows) > limit:
            q.continuation.add(REVISIONS, "continue", int(rows[limit]["rev_id"]))
        return list(rows[:limit])
    cont_pair = None
    if cont_value is not None:
        parts = cont_value.split("|")
        if len(parts) != 2:
            raise badcontinue()
        cont_pair = (_php_int(parts[0]), _php_int(parts[1]))
    rows = await ctx.db.read(
        lambda conn: revreads.latest_of_pages(
            conn, sorted(pages.good), with_text=with_text, limit=limit + 1, cont=cont_pair, tag=tag
        )
    )
    if len(rows) > limit:
        following = rows[limit]
        q.continuation.add(
            REVISIONS, "continue", f"{int(following['rev_page'])}|{int(following['rev_id'])}"
        )
    return list(rows[:limit])


def _php_int(value: str) -> int:
    """PHP's (int) cast: the leading integer, 0 when there is none."""
    match = re.match(r"\s*[+-]?\d+", value)
    # PHP's (int) saturates at the ends of its range.
    return min(max(int(match.group(0)), INT64_MIN), INT64_MAX) if match else 0


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    """As a generator: the pages the selected revisions belong to."""
    enum_mode = _check_mode(q, params)
    limit = (params["limit"] or 10) if enum_mode else _LIMIT_BIG
    rows = await _rows(q, params, False, limit, enum_mode)
    return GeneratedPages(page_ids=list(dict.fromkeys(int(r["rev_page"]) for r in rows)))


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    ctx = q.ctx
    if not q.pages.good and not q.pages.revids:
        return
    enum_mode = _check_mode(q, params)
    opts = await parse_options(q, params)
    limit = _limit(q, params, opts, enum_mode)
    rows = await _rows(q, params, opts.fetch_content, limit, enum_mode)
    tags = (
        await ctx.db.read(page_reads.revision_tags, [int(r["rev_id"]) for r in rows])
        if "tags" in opts.props
        else {}
    )
    for row in rows:
        extra: dict[str, Any] = {}
        text = row.get("old_text")
        deleted = int(row["rev_deleted"] or 0)
        if (
            opts.slots is None
            and opts.fetch_content
            and text is not None
            and _visible(q, deleted)(_DELETED_TEXT)
        ):
            if opts.section is not None:
                parts = split_sections(str(text))
                if opts.section.isdigit() and int(opts.section) < len(parts):
                    text = parts[int(opts.section)].rstrip("\n")
            extra = await _legacy_content(q, row, str(text), opts)
        entry = q.page_entry(int(row["rev_page"]))
        entry.setdefault("revisions", []).append(_revision(q, row, opts, tags, extra))


MODULE = QueryModule(REVISIONS, run, generate)
