"""Which text `action=parse` parses, and as which page and revision: a page's current revision
(`page`, `pageid`, following its redirect on `redirects`), an old revision (`oldid`), or given text
(`text`, `title`, with `pst`, `onlypst` and `section=new`); `section` cuts one section out of it.
Errors and warnings come in MediaWiki's order."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from atrium.wiki import content_models
from atrium.wiki.api.actions.common import parse_title, prefixed
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.changes.pages import page_model, split_sections
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.reads import parsing
from atrium.wiki.reads.pst_inputs import transform_for_save
from atrium.wiki.reads.visibility import DELETED_TEXT, user_can_bitfield
from atrium.wiki.titles import Title

# A heading line in wikitext: its `=` run (the level) and its text.
HEADING_SOURCE = re.compile(r"^(={1,6})(.+?)\1[ \t]*$", re.M)


@dataclass
class Source:
    """The text to parse with the page it is parsed as and the revision variables it sees."""

    title: Title
    text: str
    page_id: int = 0
    rev_id: int | None = None
    variables: dict[str, str] = field(default_factory=dict)
    redirects: list[dict[str, str]] = field(default_factory=list)
    model: str = content_models.WIKITEXT


def _section(text: str, section: str, title_given: str) -> str:
    if not section.isdigit():
        raise ApiUsageError("invalidsection", msg.api("apierror-invalidsection"), module="parse")
    parts = split_sections(text)
    index = int(section)
    if index >= len(parts):
        raise ApiUsageError(
            "nosuchsection",
            msg.api("apierror-nosuchsection-what", index, title_given),
            module="parse",
        )
    if index == 0:
        return parts[0]
    level = len(HEADING_SOURCE.match(parts[index]).group(1))  # type: ignore[union-attr]
    end = index + 1
    while end < len(parts):
        found = HEADING_SOURCE.match(parts[end])
        if found is None or len(found.group(1)) <= level:
            break
        end += 1
    return "".join(parts[index:end])


async def _old_revision(ctx: ApiContext, oldid: int) -> parsing.RevisionToParse:
    found = await ctx.db.read(parsing.revision, oldid)
    if found is None:
        raise ApiUsageError("nosuchrevid", msg.api("apierror-nosuchrevid", oldid), module="parse")
    if not user_can_bitfield(found.deleted, DELETED_TEXT, ctx.caller.rights):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-permissiondenied", msg.message("action-deletedtext")),
            module="parse",
        )
    return found


async def _current_revision(
    ctx: ApiContext, params: dict[str, Any], redirects: list[dict[str, str]]
) -> parsing.RevisionToParse:
    """The page's current revision (after its redirect when asked), the redirect noted."""
    if params["pageid"] is not None:
        rows = await ctx.db.read(page_reads.pages_by_ids, [params["pageid"]])
        if not rows:
            raise ApiUsageError(
                "nosuchpageid", msg.api("apierror-nosuchpageid", params["pageid"]), module="parse"
            )
        title = Title(int(rows[0]["page_namespace"]), str(rows[0]["page_title"]))
    else:
        title = parse_title(ctx, params["page"], "parse")
    source = await ctx.db.read(parsing.page_source, ctx.site, title, bool(params["redirects"]))
    if source.redirect is not None:
        redirect = {
            "from": prefixed(ctx, source.redirect.source),
            "to": prefixed(ctx, source.redirect.target),
        }
        if source.redirect.fragment:
            redirect["tofragment"] = source.redirect.fragment
        redirects.append(redirect)
    if source.revision is None:
        raise ApiUsageError("missingtitle", msg.api("apierror-missingtitle"), module="parse")
    return source.revision


async def stored_source(ctx: ApiContext, params: dict[str, Any]) -> Source:
    """A stored revision to parse: `oldid`, or the current one of `page` or `pageid`."""
    redirects: list[dict[str, str]] = []
    if params["oldid"] is not None:
        found = await _old_revision(ctx, params["oldid"])
    else:
        found = await _current_revision(ctx, params, redirects)
    variables = {"REVISIONID": str(found.rev_id), "REVISIONUSER": found.public_user}
    variables["REVISIONTIMESTAMP"] = found.timestamp
    text = found.text
    if params["section"] is not None:
        text = _section(text, params["section"], f"page {prefixed(ctx, found.title)}")
    return Source(found.title, text, found.page_id, found.rev_id, variables, redirects, found.model)


def _warn_given(ctx: ApiContext, params: dict[str, Any], props: set[str]) -> None:
    """MediaWiki's warnings on given text: no content model named, or a title without text."""
    if params["title"] is None and params["text"] is not None and params["contentmodel"] is None:
        ctx.warn(
            "parse", "parse-nocontentmodel", msg.api("apiwarn-parse-nocontentmodel", "wikitext")
        )
    if params["title"] is not None and params["text"] is None and props:
        ctx.warn("parse", "parse-titlewithouttext", msg.api("apiwarn-parse-titlewithouttext"))


async def _given_variables(ctx: ApiContext, revid: int | None) -> dict[str, str]:
    """The revision variables given text sees: `revid`'s id and author, else the caller."""
    variables: dict[str, str] = {}
    if revid is not None:
        variables["REVISIONID"] = str(revid)
        given_rev = await ctx.db.read(parsing.revision, revid)
        if given_rev is not None:
            variables["REVISIONUSER"] = given_rev.public_user
    variables.setdefault("REVISIONUSER", ctx.caller.name)
    return variables


async def given_source(ctx: ApiContext, params: dict[str, Any], props: set[str]) -> Source:
    """Given text (or none) to parse as `title`, with the pre-save transform when asked."""
    _warn_given(ctx, params, props)
    title = parse_title(ctx, params["title"] or "API", "parse")
    text = params["text"] or ""
    rows = await ctx.db.read(page_reads.pages_by_titles, [(title.ns, title.dbkey)])
    page_id = int(rows[0]["page_id"]) if rows else 0
    # Given text is read in the model named, else in the page's (or its title's default).
    model = params["contentmodel"] or page_model(rows[0] if rows else None, title)
    variables = await _given_variables(ctx, params["revid"])
    section = params["section"]
    if section == "new":
        heading = params["sectiontitle"] or params["summary"] or ""
        text = (f"== {heading} ==\n\n" if heading else "") + text
    elif section is not None:
        text = _section(text, section, "text")
    if params["pst"] or params["onlypst"]:
        caller = ctx.caller
        text = await ctx.db.read(
            transform_for_save, ctx.site.parser, title, text, caller.id or None, caller.name
        )
    return Source(title, text, page_id, None, variables, model=model)


async def only_pst(ctx: ApiContext, params: dict[str, Any], text: str) -> dict[str, Any]:
    """`onlypst`: the transformed text alone, with the parsed summary when one is given."""
    only: dict[str, Any] = {}
    ctx.out.content(only.setdefault("text", {}) if ctx.fv < 2 else only, "text", text)
    if params["summary"] is not None:
        summary = await ctx.db.read(parsing.format_comment, ctx.site, params["summary"])
        only["parsedsummary"] = {"*": summary} if ctx.fv < 2 else summary
    return {"parse": only}
