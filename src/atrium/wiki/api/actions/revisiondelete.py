"""`action=revisiondelete`: hide or show a revision's text, summary or author (or a log entry's
action, summary or performer), with suppression for those who hold `suppressrevision`.

MediaWiki's ApiRevisionDelete: the list type's right, then the parameters, the target (a
revision's own page, or `Special:Log/<type>`), the block check, and one status per item with the
item as it now is, shown only as far as the caller may see it.
"""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import check_blocked, performer, prefixed
from atrium.wiki.api.context import ApiContext, change_errors
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import TAGS, ModuleSpec, Param, enum
from atrium.wiki.changes import admin
from atrium.wiki.changes import revdelete as revdel
from atrium.wiki.files.paths import hash_path, url_name
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads.logparams import log_params
from atrium.wiki.reads.visibility import (
    DELETED_COMMENT,
    DELETED_RESTRICTED,
    DELETED_TEXT,
    DELETED_USER,
    user_can_bitfield,
)
from atrium.wiki.timestamps import iso
from atrium.wiki.titles import NS_FILE, InvalidTitle, Title

_FIELDS = enum("comment", "content", "user")

REVISIONDELETE = ModuleSpec(
    "revisiondelete",
    "ApiRevisionDelete",
    "action",
    "",
    (
        Param(
            "type",
            enum("archive", "filearchive", "logging", "oldimage", "revision"),
            required=True,
        ),
        Param("target"),
        Param("ids", multi=True, required=True),
        Param("hide", _FIELDS, multi=True),
        Param("show", _FIELDS, multi=True),
        Param("suppress", enum("no", "nochange", "yes"), default="nochange"),
        Param("reason"),
        Param("tags", TAGS, multi=True),
        Param("token", required=True, sensitive=True, tokentype="csrf"),
    ),
    readrights=True,
    writerights=True,
    mustbeposted=True,
    helpurls=("https://www.mediawiki.org/wiki/Special:MyLanguage/API:Revisiondelete",),
)


def _denied(action: str) -> ApiUsageError:
    return ApiUsageError(
        "permissiondenied",
        msg.api("apierror-permissiondenied", msg.message(f"action-{action}")),
        module=REVISIONDELETE.name,
    )


def _target(ctx: ApiContext, text: str | None) -> Title | None:
    """Title::newFromText of the `target` parameter (None when empty or invalid)."""
    if not text:
        return None
    try:
        title = ctx.site.parser.parse(text)
    except InvalidTitle:
        return None
    if title.interwiki or not title.dbkey:
        return None
    return Title(title.ns, title.dbkey)


async def _messages(
    ctx: ApiContext, kind: str, found: list[tuple[str, tuple[Any, ...]]]
) -> list[Any]:
    """ApiErrorFormatter::arrayFromStatus: in bc the message key, its parameters, the code and
    the type; otherwise each message in the response's error format."""
    out = []
    for key, params in found:
        formatted = await ctx.format_message(msg.Message(key, params))
        if isinstance(formatted, str):  # bc
            formatted = {"message": key, "params": list(params), "code": key, "type": kind}
        out.append(formatted)
    return out


def _revision_data(ctx: ApiContext, row: dict[str, Any], item: dict[str, Any]) -> None:
    """RevDelRevisionItem::getApiData."""
    rights = frozenset(ctx.caller.rights)
    bits = int(row["deleted"])
    item["timestamp"] = iso(str(row["timestamp"]))
    ctx.out.flag(item, "userhidden", bool(bits & DELETED_USER))
    ctx.out.flag(item, "commenthidden", bool(bits & DELETED_COMMENT))
    ctx.out.flag(item, "texthidden", bool(bits & DELETED_TEXT))
    if user_can_bitfield(bits, DELETED_USER, rights):
        item["userid"] = int(row["actor_user"] or 0)
        item["user"] = str(row["actor_name"])
    if user_can_bitfield(bits, DELETED_COMMENT, rights):
        item["comment"] = str(row["comment_text"])


def _file_data(ctx: ApiContext, kind: str, row: dict[str, Any], item: dict[str, Any]) -> None:
    """RevDelFileItem::getApiData and RevDelArchivedFileItem::getApiData: the version's size,
    what is hidden, and the parts the caller may see; an old version's address only while its
    file is shown (a hidden one is served to no one)."""
    rights = frozenset(ctx.caller.rights)
    bits = int(row["deleted"])
    name = str(row["name"])
    item["title"] = ctx.site.parser.prefixed_text(NS_FILE, name)
    if kind == "oldimage":
        item["archivename"] = str(row["archive_name"])
    # The deleted file's numbers come as text, as the archive's row gives them.
    number = int if kind == "oldimage" else str
    item["timestamp"] = iso(str(row["timestamp"]))
    item["width"], item["height"] = number(row["width"]), number(row["height"])
    item["size"] = number(row["size"])
    ctx.out.flag(item, "userhidden", bool(bits & DELETED_USER))
    ctx.out.flag(item, "commenthidden", bool(bits & DELETED_COMMENT))
    ctx.out.flag(item, "contenthidden", bool(bits & DELETED_TEXT))
    if kind == "oldimage" and not bits & DELETED_TEXT:
        item["url"] = (
            f"{ctx.site.images_url}archive/{hash_path(name)}{url_name(str(row['archive_name']))}"
        )
    if user_can_bitfield(bits, DELETED_USER, rights):
        item["userid"] = int(row["actor_user"] or 0)
        item["user"] = str(row["actor_name"])
    if user_can_bitfield(bits, DELETED_COMMENT, rights):
        item["comment"] = str(row["comment_text"])


def _log_data(ctx: ApiContext, row: dict[str, Any], item: dict[str, Any]) -> None:
    """RevDelLogItem::getApiData (the performer's id is text there, as the row gives it)."""
    rights = frozenset(ctx.caller.rights)
    bits = int(row["deleted"])
    log_type = str(row["log_type"])
    visible = revdel.log_type_visible(log_type, rights)
    item["type"] = log_type
    item["action"] = str(row["log_action"])
    ctx.out.flag(item, "userhidden", bool(bits & DELETED_USER))
    ctx.out.flag(item, "commenthidden", bool(bits & DELETED_COMMENT))
    ctx.out.flag(item, "actionhidden", bool(bits & DELETED_TEXT))
    if visible and user_can_bitfield(bits, DELETED_TEXT, rights):
        item["params"] = log_params(row["log_params"], log_type, ctx.fv)
    if visible and user_can_bitfield(bits, DELETED_USER, rights):
        user = row["actor_user"]
        item["userid"] = str(user) if user is not None else 0
        item["user"] = str(row["actor_name"])
    if visible and user_can_bitfield(bits, DELETED_COMMENT, rights):
        item["comment"] = str(row["comment_text"])


async def revisiondelete(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    kind: str = params["type"]
    tags = list(params["tags"])
    # TagsDef: only tags defined by users may be named.
    bad = await ctx.db.read(admin.disallowed_tags, tags) if tags else []
    if bad:
        key = "tags-apply-not-allowed-one" if len(bad) == 1 else "tags-apply-not-allowed-multi"
        raise ApiUsageError(
            "badtags",
            msg.api(key, msg.CommaList(tuple(bad)), len(bad)),
            module=spec.name,
            extra={"disallowedtags": bad},
        )
    if not ctx.caller.allowed(revdel.RESTRICTION[kind]):
        raise _denied(revdel.RESTRICTION[kind])
    ids: list[str] = list(params["ids"])
    if not ids:
        raise ApiUsageError(
            "paramempty_ids", msg.api("apierror-paramempty", "ids"), module=spec.name
        )
    if tags and not ctx.caller.allowed("applychangetags"):
        raise ApiUsageError(
            "tags-apply-no-permission", msg.api("tags-apply-no-permission"), module=spec.name
        )
    hide, show = set(params["hide"]), set(params["show"])
    if hide & show:
        raise ApiUsageError(
            "badparams", msg.api("apierror-revdel-mutuallyexclusive"), module=spec.name
        )
    if not hide and not show:
        raise ApiUsageError("badparams", msg.api("apierror-revdel-paramneeded"), module=spec.name)
    names = {"content": DELETED_TEXT, "comment": DELETED_COMMENT}
    names["user"] = DELETED_USER
    wanted = {bit: 1 if n in hide else 0 if n in show else -1 for n, bit in names.items()}
    suppress = params["suppress"]
    if suppress == "yes" and not ctx.caller.allowed("suppressrevision"):
        raise _denied("suppressrevision")
    wanted[DELETED_RESTRICTED] = {"yes": 1, "no": 0}.get(suppress, -1)
    title = await ctx.db.read(revdel.suggest_target, kind, _target(ctx, params["target"]), ids)
    if title is None:
        raise ApiUsageError("needtarget", msg.api("apierror-revdel-needtarget"), module=spec.name)
    await check_blocked(ctx, spec.name, title)
    with change_errors(spec.name):
        tag_ids = await ctx.db.read(revdel.tag_ids, tags)
        outcome = await ctx.db.write(
            revdel.set_visibility,
            performer(ctx),
            kind,
            title,
            ids,
            wanted,
            params["reason"] or "",
            tag_ids,
            ctx.site,
        )
    items = []
    for status in outcome.items:
        item: dict[str, Any] = {"status": "Success" if status.ok else "Fail"}
        if status.errors or status.warnings:
            errors = await _messages(ctx, "error", status.errors)
            warnings = await _messages(ctx, "warning", status.warnings)
            bc = any("message" in m for m in errors + warnings)
            # bc lists both (each carries its XML tag name, so neither is empty to PHP).
            if errors or bc:
                item["errors"] = errors
            if warnings or bc:
                item["warnings"] = warnings
        item["id"] = status.ident
        if status.row is not None:
            if kind == "logging":
                _log_data(ctx, status.row, item)
            elif kind in ("oldimage", "filearchive"):
                _file_data(ctx, kind, status.row, item)
            else:
                _revision_data(ctx, status.row, item)
        items.append(item)
    return {
        "revisiondelete": {
            "status": "Success",
            "target": prefixed(ctx, title),
            "items": items,
        }
    }


ACTION = Action(REVISIONDELETE, revisiondelete, token="csrf")
