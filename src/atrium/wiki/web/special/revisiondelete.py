"""`Special:RevisionDelete` (`?type=revision&target=<page>&ids=1,2`, `type=logging&ids=…`, and
the other lists the API's `action=revisiondelete` knows): the selected items with what each
hides, and the form that hides or shows their text (or file, or log action), summary and
author, with suppression for holders of `suppressrevision`. It is reached from a page history's
"Change visibility of selected revisions" (`action=historysubmit&revisiondelete=1`) and from
`action=revisiondelete`, and makes the same change as the API (`changes.revdelete`).

As SpecialRevisionDelete: the list's right (or `deletedhistory` to look only), the block check
on the target, a suppressed item refuses the form to anyone without `suppressrevision`, and a
hidden author, summary or text reads as removed to whoever may not see it. A post needs the
session's token; without it the form comes back with MediaWiki's `sessionfailure`.
"""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup
from starlette.responses import Response

from atrium.wiki.changes import revdelete as revdel
from atrium.wiki.changes.protection import badaccess
from atrium.wiki.files.paths import archive_path, url_name
from atrium.wiki.titles import NS_FILE, NS_MEDIAWIKI, NS_SPECIAL, Title
from atrium.wiki.web.comments import with_comment_html
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.log_lines import LogLine, log_html, message
from atrium.wiki.web.special.blocknotice import block_notice, block_of
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.log_extract import log_extract
from atrium.wiki.web.special.msg import msg_html, msg_links
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import (
    Links,
    message_page,
    permission_error,
    render,
    session_failure,
    wikitext_html,
)
from atrium.wiki.web.special.revisiondelete_file import file_view_url, show_file
from atrium.wiki.web.visibility import (
    DELETED_COMMENT,
    DELETED_RESTRICTED,
    DELETED_TEXT,
    DELETED_USER,
    can_see,
    shown_comment,
    shown_user,
)

# RevisionDeleter::getCanonicalTypeName: the list types and their older names.
CANONICAL = {
    "revision": "revision",
    "archive": "archive",
    "oldimage": "oldimage",
    "filearchive": "filearchive",
    "logging": "logging",
    "oldid": "revision",
    "artimestamp": "archive",
    "fileid": "filearchive",
    "logid": "logging",
}
# SpecialRevisionDelete::UI_LABELS: the primary box's label and the messages of each list.
LABELS = {
    "revision": ("revdelete-hide-text", "revdelete-success", "revdelete-failure",
                 "revdelete-text-text", "revdelete-selected-text"),
    "archive": ("revdelete-hide-text", "revdelete-success", "revdelete-failure",
                "revdelete-text-text", "revdelete-selected-text"),
    "oldimage": ("revdelete-hide-image", "revdelete-success", "revdelete-failure",
                 "revdelete-text-file", "revdelete-selected-file"),
    "filearchive": ("revdelete-hide-image", "revdelete-success", "revdelete-failure",
                    "revdelete-text-file", "revdelete-selected-file"),
    "logging": ("revdelete-hide-name", "logdelete-success", "logdelete-failure",
                "logdelete-text", "logdelete-selected"),
}  # fmt: skip
# More ids than this in one request are not read (the API's own limit for a list).
MAX_IDS = 500
_OTHER = "other"


def _ids(ctx: SpecialContext) -> list[str]:
    """`ids=1,2` (a link's single id, the form's hidden field) or `ids[1]=1&ids[2]=1` (the
    history's check boxes), without empty ones and repeats, in the order given."""
    raw = ctx.param("ids")
    if raw:
        parts = raw.split(",")
    else:
        parts = [k[4:-1] for k, _ in ctx.request_form_items() if k.startswith("ids[")]
        parts += [k[4:-1] for k in ctx.request.query_params if k.startswith("ids[")]
    return [p for p in dict.fromkeys(parts) if p and p != "0"][:MAX_IDS]


def _checks(ctx: SpecialContext, kind: str) -> list[tuple[str, str, int]]:
    """The boxes (message, field, bit): suppression only for those who may suppress."""
    checks = [
        (LABELS[kind][0], "wpHidePrimary", DELETED_TEXT),
        ("revdelete-hide-comment", "wpHideComment", DELETED_COMMENT),
        ("revdelete-hide-user", "wpHideUser", DELETED_USER),
    ]
    if ctx.reader.allowed("suppressrevision"):
        checks.append(("revdelete-hide-restricted", "wpHideRestricted", DELETED_RESTRICTED))
    return checks


def _int(text: str) -> int:
    """WebRequest::getInt: a leading whole number, else 0."""
    match = re.match(r"\s*[-+]?\d+", text)
    return int(match.group(0)) if match else 0


def _wanted(ctx: SpecialContext, checks: list[tuple[str, str, int]]) -> dict[int, int]:
    """extractBitParams: 1 hides, 0 shows, -1 keeps; an unticked box shows, and without the
    suppression box the restriction is lifted (which only a suppressor may ask)."""
    wanted: dict[int, int] = {}
    for _label, name, bit in checks:
        value = _int(ctx.param(name, "0"))
        wanted[bit] = value if -1 <= value <= 1 else -1
    wanted.setdefault(DELETED_RESTRICTED, 0)
    return wanted


def _reasons(suppressor: bool) -> list[tuple[str, list[str]]]:
    """The reason list (`revdelete-reason-dropdown`, and the suppression reasons for those who
    may suppress) as groups of options, as Xml::listDropDownOptions reads it."""
    text = message("revdelete-reason-dropdown")
    if suppressor:
        text += "\n" + message("revdelete-reason-dropdown-suppress")
    groups: list[tuple[str, list[str]]] = []
    for line in text.split("\n"):
        if line.startswith("**"):
            if not groups:
                groups.append(("", []))
            groups[-1][1].append(line[2:].strip())
        elif line.startswith("*"):
            groups.append((line[1:].strip(), []))
    return groups


def _reason(ctx: SpecialContext) -> str:
    chosen = ctx.param("wpRevDeleteReasonList", _OTHER)
    other = ctx.param("wpReason")
    if chosen == _OTHER:
        return other[:500]
    return (chosen + (": " + other if other else ""))[:500]


async def _entries(
    ctx: SpecialContext, kind: str, target: Title, rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Each item as the list shows it (RevDel*Item::getHTML), with only what the reader may
    see of it."""
    reader = ctx.reader
    entries: list[dict[str, Any]] = []
    for row in rows:
        bits = int(row["deleted"])
        entry: dict[str, Any] = {
            "id": str(row["id"]),
            "bits": bits,
            "time": local_time(str(row["timestamp"])),
            "visible": can_see(reader, bits, DELETED_RESTRICTED),
            "primary_hidden": bool(bits & DELETED_TEXT),
            "primary_visible": can_see(reader, bits, DELETED_TEXT),
            "user": shown_user(reader, bits, str(row["actor_name"])),
            "user_hidden": bool(bits & DELETED_USER),
            "comment": shown_comment(reader, bits, str(row["comment_text"] or "")),
            "comment_hidden": bool(bits & DELETED_COMMENT),
            "archived": bool(row.get("archived")),
            "ts": str(row["timestamp"]),
            "title": target,  # the page a summary's section links point into
        }
        if kind in ("oldimage", "filearchive"):
            entry["width"], entry["height"] = int(row["width"] or 0), int(row["height"] or 0)
            entry["size"] = int(row["size"] or 0)
            entry["archive_name"] = str(row.get("archive_name") or "")
        if kind == "oldimage" and entry["archive_name"]:
            # RevDelFileItem::getLink: a shown version at its URL, a hidden one through the
            # file view, to those who may see it.
            archived = entry["archive_name"]
            if not bits & DELETED_TEXT:
                rel = archive_path(target.dbkey, url_name(archived))
                entry["file_url"] = ctx.site.images_path + rel
            elif entry["primary_visible"]:
                entry["file_url"] = file_view_url(ctx, target, archived)
        if kind == "logging":
            log_type = str(row["log_type"])
            if not revdel.log_type_visible(log_type, frozenset(reader.rights)):
                # A suppression-log entry is not shown to those who may not read that log.
                entry["visible"] = False
            entry["log_type"] = log_type
            entry["action"] = str(row["log_action"])
            entry["params"] = row["log_params"]
            entry["target"] = (
                Title(int(row["log_namespace"]), str(row["log_title"]))
                if entry["primary_visible"]
                else None
            )
            entry["title"] = entry["target"]
        entries.append(entry)
    entries = await with_comment_html(ctx.db, ctx.site, entries)
    if kind == "logging":
        lines = [
            LogLine(e["log_type"], e["action"], e["params"], e["user"], e["target"])
            for e in entries
        ]
        sentences = await log_html(ctx.db, ctx.site, lines)
        for entry, sentence in zip(entries, sentences, strict=True):
            entry["sentence"] = sentence
    return entries


async def _failure(ctx: SpecialContext, kind: str, outcome: revdel.Outcome) -> Markup | None:
    """The failure box (Status::getWikiText of the items' errors and warnings), or None when
    every item changed."""
    problems = [
        message(key, *params)
        for status in outcome.items
        for key, params in (*status.errors, *status.warnings)
    ]
    if not problems:
        return None
    listed = problems[0] if len(problems) == 1 else "\n" + "\n".join(f"* {p}" for p in problems)
    return Markup(await wikitext_html(ctx, message(LABELS[kind][2], listed)))


async def _logs(
    ctx: SpecialContext, kind: str, target: Title, ids: list[str]
) -> list[tuple[str, Any]]:
    """The revision-deletion entries of the deletion and suppression logs about the selected
    items (found through log_search by the items' field), each log for those who may read it."""
    action = "event" if kind == "logging" else "revision"
    values = list(dict.fromkeys(str(revdel.item_key(i)) for i in ids))
    related = (revdel.RELATION_FIELD[kind], values)
    shown: list[tuple[str, Any]] = []
    for log_type, right, heading in (
        ("delete", "deletedhistory", "Deletion log"),
        ("suppress", "suppressionlog", "Suppression log"),
    ):
        if ctx.reader.allowed(right):
            lines = await log_extract(ctx, log_type, target, action=action, related=related)
            shown.append((heading, lines))
    return shown


async def _show(
    ctx: SpecialContext,
    kind: str,
    target: Title,
    ids: list[str],
    may_change: bool,
    *,
    status: int = 200,
    done: bool = False,
    failure: Markup | None = None,
) -> Response:
    """SpecialRevisionDelete::showForm: the list, the explanation and, for those who may
    change it, the form."""
    rows = await ctx.db.read(revdel.list_items, kind, target, ids)
    entries = await _entries(ctx, kind, target, rows)
    if not entries:
        return await message_page(
            ctx, message("revdelete-nooldid-title"), message("revdelete-nooldid-text"), 200
        )
    if not all(e["visible"] for e in entries):
        if ctx.method != "POST":
            return await permission_error(
                ctx, "suppress revisions", badaccess(ctx.site, "suppressrevision")
            )
        may_change = False
    labels = LABELS[kind]
    suppressor = ctx.reader.allowed("suppressrevision")
    checks = _checks(ctx, kind)
    posted = ctx.method == "POST" and ctx.flag("wpSubmit") and not done
    single = len(entries) == 1
    boxes = []
    for label, name, bit in checks:
        if single:
            current = entries[0]["bits"]
            if posted:
                current = revdel.new_bits(_wanted(ctx, checks), current)
            state = 1 if current & bit else 0
        else:
            state = _int(ctx.param(name, "0")) if posted else -1
        boxes.append(
            {
                "label": message(label),
                "name": name,
                "state": state,
                "bold": bit == DELETED_RESTRICTED,
            }
        )
    if kind == "logging":
        selected = await msg_links(ctx, labels[4], len(entries))
    else:
        selected = await msg_links(ctx, labels[4], len(entries), target)
    usage = Markup(await msg_html(ctx, labels[3])) + Markup(
        await msg_html(ctx, "revdelete-text-others")
    )
    if suppressor:
        usage += await msg_html(ctx, "revdelete-suppress-text")
    if may_change:
        # The policy link's target is itself a message ({{MediaWiki:Policy-url}}).
        confirm = message("revdelete-confirm").replace(
            "{{MediaWiki:Policy-url}}", message("policy-url")
        )
        usage += Markup(await wikitext_html(ctx, confirm))
    heading = (
        "Action complete" if done else "Action failed" if failure else message("revisiondelete")
    )
    return await render(
        ctx,
        "revisiondelete.html",
        heading,
        status,
        kind=kind,
        target=target,
        target_name=ctx.site.parser.prefixed_text(target.ns, target.dbkey),
        is_page=target.ns != NS_SPECIAL,
        file_page=target.ns == NS_FILE,
        entries=entries,
        selected=selected,
        usage=usage,
        may_change=may_change,
        single=single,
        boxes=boxes,
        reasons=_reasons(suppressor),
        chosen_reason=ctx.param("wpRevDeleteReasonList", _OTHER),
        other_reason="" if done else ctx.param("wpReason"),
        submit=message("revdelete-submit", len(entries)),
        ids=",".join(ids),
        form_action=Links(ctx.site).index(Title(NS_SPECIAL, "RevisionDelete"), action="submit"),
        done=Markup(await msg_html(ctx, labels[1])) if done else None,
        failure=failure,
        may_undelete=ctx.reader.allowed("undelete"),
        edit_reasons=ctx.reader.allowed("editinterface"),
        suppressor=suppressor,
        reason_pages=(
            Title(NS_MEDIAWIKI, "Revdelete-reason-dropdown"),
            Title(NS_MEDIAWIKI, "Revdelete-reason-dropdown-suppress"),
        ),
        logs=await _logs(ctx, kind, target, ids),
    )


async def handle(ctx: SpecialContext) -> Response:
    archive_name = ctx.param("file")
    file_target = ctx.title_of(ctx.param("target")) if archive_name else None
    if archive_name and file_target is not None:
        return await show_file(ctx, file_target, archive_name)
    ids = _ids(ctx)
    kind = CANONICAL.get(ctx.param("type"))
    if kind is None or not ids:
        return await message_page(
            ctx, message("revdelete-nooldid-title"), message("revdelete-nooldid-text"), 200
        )
    restriction = revdel.RESTRICTION[kind]
    reader = ctx.reader
    if not (reader.allowed(restriction) or reader.allowed("deletedhistory")):
        doing = "delete log entries" if kind == "logging" else "delete revisions"
        return await permission_error(ctx, doing, badaccess(ctx.site, restriction))
    asked = ctx.title_of(ctx.param("target"))
    target = await ctx.db.read(revdel.suggest_target, kind, asked, ids)
    if target is None:
        return await message_page(
            ctx, message("revisiondelete"), message("undelete-header"), 200, box=""
        )
    block = await block_of(ctx, target)
    if block is not None:
        return await block_notice(ctx, block)
    rows = await ctx.db.read(revdel.list_items, kind, target, ids)
    may_change = reader.allowed(restriction)
    if reader.allowed("viewsuppressed") and not reader.allowed("suppressrevision"):
        # One who may only look at suppressed items may not change a list holding one.
        may_change = may_change and not any(int(r["deleted"]) & DELETED_RESTRICTED for r in rows)
    if not (may_change and ctx.method == "POST" and ctx.flag("wpSubmit")):
        return await _show(ctx, kind, target, ids, may_change)
    if not ctx.token_ok():
        return await _show(
            ctx, kind, target, ids, may_change,
            failure=Markup("<p>{}</p>").format(session_failure()),
        )  # fmt: skip
    checks = _checks(ctx, kind)
    wanted = _wanted(ctx, checks)
    if wanted[DELETED_RESTRICTED] == 1 and not reader.allowed("suppressrevision"):
        return await permission_error(
            ctx, "suppress revisions", badaccess(ctx.site, "suppressrevision")
        )
    outcome = await ctx.db.write(
        revdel.set_visibility, ctx.performer(), kind, target, ids, wanted, _reason(ctx)
    )
    failure = await _failure(ctx, kind, outcome)
    return await _show(ctx, kind, target, ids, may_change, done=failure is None, failure=failure)


PAGE = SpecialPage(
    "RevisionDelete", "Delete/undelete revisions", "pagetools", handle, "deleterevision",
    listed=False,
)  # fmt: skip
