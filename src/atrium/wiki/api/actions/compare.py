"""`action=compare`: MediaWiki's diff table between two revisions, pages or texts
(`from…`/`to…`, `torelative=prev|next|cur`), with the `prop` details of each side. Hidden
revision text, comments and users stay hidden from callers without the rights to see them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import parse_title, prefixed
from atrium.wiki.api.actions.parse import CONTENT_FORMATS, CONTENT_MODELS
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import BOOLEAN, INTEGER, TEXT, ModuleSpec, Param, enum
from atrium.wiki.changes.pages import split_sections
from atrium.wiki.diff import table_rows
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import comparing, parsing
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.reads.pst_inputs import transform_for_save
from atrium.wiki.reads.visibility import user_can_bitfield
from atrium.wiki.timestamps import iso
from atrium.wiki.titles import Title

PROPS = (
    "comment",
    "diff",
    "diffsize",
    "ids",
    "parsedcomment",
    "rel",
    "size",
    "timestamp",
    "title",
    "user",
)
_NO_SECTION = {
    "from": "apierror-compare-nosuchfromsection",
    "to": "apierror-compare-nosuchtosection",
}
_NO_NEIGHBOUR = {"prev": "apiwarn-compare-no-prev", "next": "apiwarn-compare-no-next"}
# rev_deleted bits (RevisionRecord::DELETED_*).
_TEXT, _COMMENT, _USER, _RESTRICTED = 1, 2, 4, 8


def _side(prefix: str, relative: bool) -> tuple[Param, ...]:
    params = [
        Param(f"{prefix}title"),
        Param(f"{prefix}id", INTEGER),
        Param(f"{prefix}rev", INTEGER),
    ]
    if relative:
        params.append(Param("torelative", enum("cur", "next", "prev")))
    params += [
        Param(f"{prefix}slots", enum("main"), multi=True),
        Param(f"{prefix}pst", BOOLEAN),
        Param(f"{prefix}text", TEXT, deprecated=True),
        Param(f"{prefix}contentformat", enum(*CONTENT_FORMATS), deprecated=True),
        Param(f"{prefix}contentmodel", enum(*CONTENT_MODELS), deprecated=True),
        Param(f"{prefix}section", deprecated=True),
    ]
    return tuple(params)


COMPARE = ModuleSpec(
    "compare",
    "ApiComparePages",
    "action",
    "",
    (
        *_side("from", False),
        *_side("to", True),
        Param("prop", enum(*PROPS), default="diff|ids|title", multi=True),
        Param("slots", enum("main"), multi=True, allspecifier="*"),
    ),
)


@dataclass
class Side:
    text: str
    revision: comparing.Revision | None = None  # None: text given in the request


def _can_see(ctx: ApiContext, deleted: int, bit: int) -> bool:
    return user_can_bitfield(deleted, bit, ctx.caller.rights)


def _given_text(ctx: ApiContext, params: dict[str, Any], prefix: str) -> str | None:
    """`{prefix}text`, or `{prefix}text-main` when `{prefix}slots=main` (the slot form)."""
    if "main" in params[f"{prefix}slots"]:
        raw = ctx.params.get_raw(f"{prefix}text-main")
        if raw is None:
            raise ApiUsageError(
                "missingparam",
                msg.api("apierror-compare-maintextrequired", prefix),
                module="compare",
            )
        return raw
    given: str | None = params[f"{prefix}text"]
    return given


async def _revision_of(ctx: ApiContext, params: dict[str, Any], prefix: str) -> Any:
    """The revision named by `{prefix}rev`, `{prefix}id` or `{prefix}title` (its current one),
    or None when the side names none."""
    rev, page_id, title_text = (
        params[f"{prefix}rev"],
        params[f"{prefix}id"],
        params[f"{prefix}title"],
    )
    if rev is not None:
        found = await ctx.db.read(comparing.revision, ctx.site, rev)
        if found is None:
            raise ApiUsageError(
                "nosuchrevid", msg.api("apierror-nosuchrevid", rev), module="compare"
            )
        return found
    if page_id is not None:
        rows = await ctx.db.read(page_reads.pages_by_ids, [page_id])
        if not rows:
            raise ApiUsageError(
                "nosuchpageid", msg.api("apierror-nosuchpageid", page_id), module="compare"
            )
        return await ctx.db.read(comparing.revision, ctx.site, int(rows[0]["page_latest"]))
    if title_text is not None:
        title = parse_title(ctx, title_text, "compare")
        latest = await ctx.db.read(parsing.current_revision_id, title)
        if latest is None:
            raise ApiUsageError(
                "missingtitle",
                msg.api("apierror-missingtitle-byname", prefixed(ctx, title)),
                module="compare",
            )
        return await ctx.db.read(comparing.revision, ctx.site, latest)
    return None


def _title_of(ctx: ApiContext, params: dict[str, Any], prefix: str) -> Title | None:
    text = params[f"{prefix}title"]
    return parse_title(ctx, text, "compare") if text is not None else None


def _section(text: str, section: str | None, prefix: str) -> str:
    if section is None:
        return text
    parts = split_sections(text)
    if not section.isdigit() or int(section) >= len(parts):
        raise ApiUsageError(
            f"nosuch{prefix}section",
            msg.api(_NO_SECTION[prefix], section),
            module="compare",
        )
    return parts[int(section)]


async def _side_text(
    ctx: ApiContext,
    params: dict[str, Any],
    prefix: str,
    revision: comparing.Revision | None,
    title: Title | None,
) -> Side:
    given = _given_text(ctx, params, prefix)
    if given is not None:
        text = given
        if params[f"{prefix}pst"]:
            if title is None:
                raise ApiUsageError(
                    "compare-no-title", msg.api("apierror-compare-no-title"), module="compare"
                )
            caller = ctx.caller
            text = await ctx.db.read(
                transform_for_save, ctx.site.parser, title, text, caller.id or None, caller.name
            )
        return Side(_section(text, params[f"{prefix}section"], prefix))
    assert revision is not None
    side = _revision_side(ctx, revision)
    side.text = _section(side.text, params[f"{prefix}section"], prefix)
    return side


def _revision_side(ctx: ApiContext, revision: comparing.Revision) -> Side:
    if not _can_see(ctx, revision.deleted, _TEXT):
        raise ApiUsageError(
            "missingcontent",
            msg.api("apierror-missingcontent-revid", revision.rev_id),
            module="compare",
        )
    return Side(revision.text, revision)


def _describe(
    ctx: ApiContext, out: dict[str, Any], prefix: str, side: Side | None, props: set[str]
) -> None:
    rev = side.revision if side is not None else None
    if rev is None:
        return
    if "ids" in props:
        out[f"{prefix}id"] = rev.page_id
        out[f"{prefix}revid"] = rev.rev_id
    if "title" in props:
        out[f"{prefix}ns"] = rev.title.ns
        out[f"{prefix}title"] = prefixed(ctx, rev.title)
    if "size" in props:
        out[f"{prefix}size"] = rev.size
    if "timestamp" in props:
        out[f"{prefix}timestamp"] = iso(rev.timestamp)
    if "user" in props:
        if _can_see(ctx, rev.deleted, _USER):
            out[f"{prefix}user"] = rev.user
            out[f"{prefix}userid"] = rev.user_id
        if rev.deleted & _USER:
            ctx.out.flag_if(out, f"{prefix}userhidden", True)
    if props & {"comment", "parsedcomment"}:
        if _can_see(ctx, rev.deleted, _COMMENT):
            if "comment" in props:
                out[f"{prefix}comment"] = rev.comment
            # ApiComparePages adds the parsed comment whenever either is asked for.
            out[f"{prefix}parsedcomment"] = rev.parsed_comment
        if rev.deleted & _COMMENT:
            ctx.out.flag_if(out, f"{prefix}commenthidden", True)
    if rev.deleted & _TEXT:
        ctx.out.flag_if(out, f"{prefix}texthidden", True)
    if rev.deleted & _RESTRICTED:
        ctx.out.flag_if(out, f"{prefix}suppressed", True)


async def compare(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    props: set[str] = set(params["prop"])
    from_keys = ("fromtitle", "fromid", "fromrev", "fromtext", "fromslots")
    if not any(params[k] for k in from_keys):
        raise ApiUsageError(
            "missingparam", msg.missing_at_least_one_of(list(from_keys)), module="compare"
        )
    to_keys = ("totitle", "toid", "torev", "totext", "torelative", "toslots")
    if not any(params[k] for k in to_keys):
        raise ApiUsageError(
            "missingparam", msg.missing_at_least_one_of(list(to_keys)), module="compare"
        )
    has_from_text = params["fromtext"] is not None or "main" in params["fromslots"]
    has_to_text = params["totext"] is not None or "main" in params["toslots"]
    from_rev = None if has_from_text else await _revision_of(ctx, params, "from")
    from_title = _title_of(ctx, params, "from") or (from_rev.title if from_rev else None)
    relative = params["torelative"]
    from_side: Side | None
    to_side: Side | None
    missing_neighbour = False
    if relative is not None:
        if from_rev is None:
            raise ApiUsageError(
                "compare-relative-to-nothing",
                msg.api("apierror-compare-relative-to-nothing"),
                module="compare",
            )
        base = from_rev
        if relative == "cur":
            other = await ctx.db.read(comparing.current_of_page, ctx.site, base.page_id)
        else:
            other = await ctx.db.read(comparing.neighbour_of, ctx.site, base, relative == "next")
        if other is None:
            missing_neighbour = True
            ctx.warn(
                "compare",
                f"compare-no-{relative}",
                msg.api(_NO_NEIGHBOUR[relative], prefixed(ctx, base.title), base.rev_id),
            )
        older, newer = (other, base) if relative == "prev" else (base, other)
        from_side = None if older is None else _revision_side(ctx, older)
        to_side = None if newer is None else _revision_side(ctx, newer)
        to_title = from_title
    else:
        to_rev = None if has_to_text else await _revision_of(ctx, params, "to")
        to_title = _title_of(ctx, params, "to") or (to_rev.title if to_rev else from_title)
        from_side = await _side_text(ctx, params, "from", from_rev, from_title)
        to_side = await _side_text(ctx, params, "to", to_rev, to_title)
    if (
        (has_from_text or has_to_text)
        and params["fromcontentmodel"] is None
        and (from_title is None and to_title is None)
    ):
        ctx.warn(
            "compare",
            "compare-nocontentmodel",
            msg.api("apiwarn-compare-nocontentmodel", "wikitext"),
        )

    out: dict[str, Any] = {}
    _describe(ctx, out, "from", from_side, props)
    _describe(ctx, out, "to", to_side, props)
    if "rel" in props:
        if from_side is not None and from_side.revision is not None:
            before = await ctx.db.read(comparing.neighbour_of, ctx.site, from_side.revision, False)
            if before is not None:
                out["prev"] = before.rev_id
        if to_side is not None and to_side.revision is not None:
            after = await ctx.db.read(comparing.neighbour_of, ctx.site, to_side.revision, True)
            if after is not None:
                out["next"] = after.rev_id
    if relative == "next" and missing_neighbour:
        body = ""
    else:
        body = table_rows(from_side.text if from_side else "", to_side.text if to_side else "")
    if "diffsize" in props:
        out["diffsize"] = len(body.encode())
    if "diff" in props:
        ctx.out.content(out, "body", body)
    return {"compare": out}


ACTION = Action(COMPARE, compare)
