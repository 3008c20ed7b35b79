"""Account and tag write actions: `block`, `unblock`, `userrights`, `managetags`, `tag`, and
`upload` (with the stash)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from atrium.core import workers
from atrium.wiki.accounts.rights import CHANGEABLE_BY
from atrium.wiki.accounts.usernames import is_ip_or_range
from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import (
    UNKNOWN_USER,
    apply_watchlist,
    check_blocked,
    check_rate_limit,
    parse_title,
    performer,
    prefixed,
)
from atrium.wiki.api.context import ApiContext, change_errors
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    BOOLEAN,
    INTEGER,
    NAMESPACE,
    RAW,
    TAGS,
    TEXT,
    TITLE,
    USER,
    ModuleSpec,
    Param,
    enum,
)
from atrium.wiki.changes import ChangeError, admin, uploads
from atrium.wiki.changes import blocks as block_changes
from atrium.wiki.changes.expiry import INFINITY, api_expiry, checked_expiry
from atrium.wiki.changes.uploadcheck import UploadRefused
from atrium.wiki.files import metadata as mediameta
from atrium.wiki.files.paths import hash_path, url_name
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.reads.users import account_by_id, account_by_name, is_hidden
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import NS_USER, Title


def _spec(name: str, classname: str, params: tuple[Param, ...]) -> ModuleSpec:
    return ModuleSpec(
        name, classname, "action", "", params, readrights=True, writerights=True, mustbeposted=True
    )


def _token(kind: str = "csrf") -> Param:
    return Param("token", required=True, sensitive=True, tokentype=kind)


_GROUPS = enum(*sorted({g for groups in CHANGEABLE_BY.values() for g in groups}))

BLOCK = _spec(
    "block",
    "ApiBlock",
    (
        Param("user", USER, subtypes=("name", "ip", "cidr", "id")),
        Param("userid", INTEGER, deprecated=True),
        Param("expiry", default="never"),
        Param("reason", default=""),
        Param("anononly", BOOLEAN),
        Param("nocreate", BOOLEAN),
        Param("autoblock", BOOLEAN),
        Param("noemail", BOOLEAN),
        Param("hidename", BOOLEAN),
        Param("allowusertalk", BOOLEAN),
        Param("reblock", BOOLEAN),
        Param("watchuser", BOOLEAN),
        Param("tags", TAGS, multi=True),
        Param("partial", BOOLEAN),
        Param("pagerestrictions", TITLE, multi=True),
        Param("namespacerestrictions", NAMESPACE, multi=True, allspecifier="*"),
        _token(),
    ),
)
UNBLOCK = _spec(
    "unblock",
    "ApiUnblock",
    (
        Param("id", INTEGER),
        Param("user", USER, subtypes=("name", "ip", "cidr", "id")),
        Param("userid", INTEGER, deprecated=True),
        Param("reason", default=""),
        Param("tags", TAGS, multi=True),
        _token(),
    ),
)
USERRIGHTS = _spec(
    "userrights",
    "ApiUserrights",
    (
        Param("user", USER, subtypes=("name", "id")),
        Param("userid", INTEGER, deprecated=True),
        Param("add", _GROUPS, multi=True),
        Param("expiry", multi=True, default="infinite", allowsduplicates=True),
        Param("remove", _GROUPS, multi=True),
        Param("reason", default=""),
        _token("userrights"),
        Param("tags", TAGS, multi=True),
    ),
)
MANAGETAGS = _spec(
    "managetags",
    "ApiManageTags",
    (
        Param("operation", enum("activate", "create", "deactivate", "delete"), required=True),
        Param("tag", required=True),
        Param("reason", default=""),
        Param("ignorewarnings", BOOLEAN),
        Param("tags", TAGS, multi=True),
        _token(),
    ),
)
TAG = _spec(
    "tag",
    "ApiTag",
    (
        Param("rcid", INTEGER, multi=True),
        Param("revid", INTEGER, multi=True),
        Param("logid", INTEGER, multi=True),
        Param("add", TAGS, multi=True),
        Param("remove", multi=True),
        Param("reason", default=""),
        Param("tags", TAGS, multi=True),
        _token(),
    ),
)
UPLOAD = _spec(
    "upload",
    "ApiUpload",
    (
        Param("filename"),
        Param("comment", default=""),
        Param("tags", TAGS, multi=True),
        Param("text", TEXT),
        Param("watch", BOOLEAN, deprecated=True),
        Param("watchlist", enum("nochange", "preferences", "watch"), default="preferences"),
        Param("ignorewarnings", BOOLEAN),
        Param("file", RAW),
        Param("url"),
        Param("filekey"),
        Param("sessionkey", deprecated=True),
        Param("stash", BOOLEAN),
        Param("filesize", INTEGER, min=0, max=uploads.MAX_SIZE),
        Param("offset", INTEGER, min=0),
        Param("chunk", RAW),
        Param("async", BOOLEAN),
        Param("checkstatus", BOOLEAN),
        _token(),
    ),
)


async def _block_target(
    ctx: ApiContext, params: dict[str, Any], module: str, *, must_exist: bool = True
) -> tuple[str, int]:
    """The target as stored (user name, IP or range) and the account id (0 for addresses). A
    `#id` of no account names "Unknown user" (User::newFromId's name); an unknown name is refused
    with `nosuchusershort` unless `must_exist` is false (unblock: no block is found for it)."""
    if params["user"] is None and params["userid"] is None:
        raise ApiUsageError("missingparam", msg.missing_one_of(["user", "userid"]), module=module)
    user = params["user"]
    if params["userid"] is not None or (user is not None and str(user).startswith("#")):
        user_id = params["userid"] if params["userid"] is not None else int(str(user)[1:])
        account = await ctx.db.read(account_by_id, user_id)
        if account is not None:
            return account.name, account.id
        if params["userid"] is not None:
            raise ApiUsageError(
                "nosuchuserid", msg.api("apierror-nosuchuserid", user_id), module=module
            )
        user = UNKNOWN_USER
    name = str(user)
    if is_ip_or_range(name):
        return block_changes.sanitize_target(name), 0
    account = await ctx.db.read(account_by_name, name)
    if account is None:
        if not must_exist:
            return name, 0
        raise ApiUsageError("nosuchuser", msg.api("nosuchusershort", name), module=module)
    return account.name, account.id


async def block(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    target, user_id = await _block_target(ctx, params, spec.name)
    if not ctx.caller.allowed("block"):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-permissiondenied", msg.message("action-block")),
            module=spec.name,
        )
    # A blocked administrator may not block others (only themselves lifted with unblockself).
    await check_blocked(ctx, spec.name, None)
    expiry_text = params["expiry"]
    try:
        expiry = checked_expiry(expiry_text, now14())
    except ChangeError as exc:
        if exc.code == "pastexpiry":
            raise ApiUsageError(
                "ipb_expiry_old",
                msg.api("ipb_expiry_old"),
                module=spec.name,
            ) from exc
        raise ApiUsageError(
            "invalidexpiry",
            msg.api("ipb_expiry_invalid"),
            module=spec.name,
        ) from exc
    pages: list[tuple[int, Title]] = []
    for text in params["pagerestrictions"]:
        title = parse_title(ctx, text, spec.name)
        rows = await ctx.db.read(page_reads.pages_by_titles, [(title.ns, title.dbkey)])
        if rows:
            pages.append((int(rows[0]["page_id"]), title))
    request = block_changes.BlockRequest(
        target=target,
        user_id=user_id,
        expiry=expiry,
        duration=expiry_text,
        reason=params["reason"],
        anononly=params["anononly"],
        nocreate=params["nocreate"],
        autoblock=params["autoblock"],
        noemail=params["noemail"],
        hidename=params["hidename"],
        allowusertalk=params["allowusertalk"],
        reblock=params["reblock"],
        partial=params["partial"],
        pages=pages,
        namespaces=list(params["namespacerestrictions"]),
    )
    with change_errors(spec.name):
        block_id, _log = await ctx.db.write(block_changes.block, performer(ctx), request)
    if params["watchuser"] and ctx.caller.registered:
        await apply_watchlist(ctx, Title(NS_USER, target.replace(" ", "_")), "watch", "")
    out = ctx.out
    result: dict[str, Any] = {
        "user": params["user"] if params["user"] is not None else target,
        "userID": user_id,
        "expiry": api_expiry(expiry),
        "id": block_id,
        "reason": params["reason"],
    }
    for key in (
        "anononly",
        "nocreate",
        "autoblock",
        "noemail",
        "hidename",
        "allowusertalk",
        "watchuser",
        "partial",
    ):
        out.flag(result, key, params[key])
    result["pagerestrictions"] = (
        [prefixed(ctx, t) for _, t in pages] if params["pagerestrictions"] else None
    )
    result["namespacerestrictions"] = (
        list(params["namespacerestrictions"]) if params["namespacerestrictions"] else None
    )
    return {"block": result}


async def unblock(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    given = [k for k in ("id", "user", "userid") if params[k] is not None]
    if not given:
        raise ApiUsageError(
            "missingparam", msg.missing_one_of(["id", "user", "userid"]), module=spec.name
        )
    if len(given) > 1:
        raise ApiUsageError("invalidparammix", msg.invalidparammix(given), module=spec.name)
    if not ctx.caller.allowed("block"):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-permissiondenied-unblock"),
            module=spec.name,
        )
    target = None
    if params["id"] is None:
        target, _ = await _block_target(ctx, params, spec.name, must_exist=False)
    with change_errors(spec.name):
        row = await ctx.db.write(
            block_changes.unblock, performer(ctx), params["id"], target, params["reason"]
        )
    return {
        "unblock": {
            "id": int(row["ipb_id"]),
            "user": str(row["ipb_address"]),
            "userid": int(row["ipb_user"]),
            "reason": params["reason"],
        }
    }


async def userrights(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    if params["user"] is None and params["userid"] is None:
        raise ApiUsageError(
            "missingparam", msg.missing_one_of(["user", "userid"]), module=spec.name
        )
    user = params["user"]
    if params["userid"] is not None or str(user).startswith("#"):
        account = await ctx.db.read(
            account_by_id, params["userid"] if params["userid"] is not None else int(str(user)[1:])
        )
    else:
        account = await ctx.db.read(account_by_name, str(user))
    if (
        account is not None
        and not ctx.caller.allowed("hideuser")
        and await ctx.db.read(is_hidden, account.id)
    ):
        account = None  # UserrightsPage::fetchUser: a hidden user is nobody to them
    if account is None:
        raise ApiUsageError(
            "nosuchuser",
            msg.api("nosuchusershort", str(user)),
            module=spec.name,
        )
    expiries: list[str] = params["expiry"]
    if len(expiries) != 1 and len(expiries) != len(params["add"]):
        raise ApiUsageError(
            "toofewexpiries",
            msg.api("apierror-toofewexpiries", len(expiries), len(params["add"])),
            module=spec.name,
        )
    if len(expiries) == 1:
        expiries = expiries * len(params["add"])
    now = now14()
    add: list[tuple[str, str]] = []
    for group, text in zip(params["add"], expiries, strict=True):
        with change_errors(spec.name):
            add.append((group, checked_expiry(text, now)))
    await check_blocked(ctx, spec.name, None)
    with change_errors(spec.name):
        change = await ctx.db.write(
            admin.change_groups,
            performer(ctx),
            ctx.caller.all_groups,
            account.id,
            account.name,
            add,
            list(params["remove"]),
            params["reason"],
        )
    result: dict[str, Any] = {"user": account.name, "userid": account.id, "added": change.added}
    if change.added and any(e != INFINITY for g, e in add if g in change.added):
        result["added"] = [
            {"group": g, "expiry": api_expiry(e)} for g, e in add if g in change.added
        ]
    result["removed"] = change.removed
    return {"userrights": result}


async def managetags(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    await check_blocked(ctx, spec.name, None)
    with change_errors(spec.name):
        log_id, warnings = await ctx.db.write(
            admin.manage_tag,
            performer(ctx),
            params["operation"],
            params["tag"],
            params["reason"],
            params["ignorewarnings"],
        )
    result: dict[str, Any] = {"operation": params["operation"], "tag": params["tag"]}
    ctx.out.flag_if(result, "success", True)
    if warnings:
        result["warnings"] = warnings
    result["logid"] = log_id
    return {"managetags": result}


async def tag(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    if not (params["rcid"] or params["revid"] or params["logid"]):
        raise ApiUsageError(
            "missingparam",
            msg.missing_at_least_one_of(["rcid", "revid", "logid"]),
            module=spec.name,
        )
    if not (params["add"] or params["remove"]):
        raise ApiUsageError(
            "missingparam", msg.missing_at_least_one_of(["add", "remove"]), module=spec.name
        )
    # `add` is a tags parameter: TagsDef refuses undefined tags before the module runs.
    bad = await ctx.db.read(admin.disallowed_tags, list(params["add"]))
    if bad:
        key = "tags-apply-not-allowed-one" if len(bad) == 1 else "tags-apply-not-allowed-multi"
        raise ApiUsageError(
            "badtags",
            msg.api(key, msg.CommaList(tuple(bad)), len(bad)),
            module=spec.name,
            extra={"disallowedtags": bad},
        )
    if not ctx.caller.allowed("changetags"):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-permissiondenied", msg.message("action-changetags")),
            module=spec.name,
        )
    await check_blocked(ctx, spec.name, None)
    who = performer(ctx)
    results = []
    for kind in ("rcid", "revid", "logid"):
        for ident in params[kind]:
            done = await ctx.db.write(
                admin.tag_change,
                who,
                kind,
                ident,
                list(params["add"]),
                list(params["remove"]),
                params["reason"],
            )
            item: dict[str, Any] = {kind: ident, "status": done.status}
            if done.error is not None:
                item["errors"] = [{"type": "error", "code": done.error[0], "text": done.error[1]}]
            elif done.noop:
                ctx.out.flag_if(item, "noop", True)
            else:
                item["actionlogid"] = done.log_id
                item["added"] = done.added
                item["removed"] = done.removed
            results.append(item)
    return {"tag": results}


def _files_dir(ctx: ApiContext) -> Path:
    directory = ctx.site.files_dir
    if directory is None:
        raise ApiUsageError(
            "uploaddisabled",
            msg.api("uploaddisabled"),
            module="upload",
        )
    return directory


async def upload(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    files_dir = _files_dir(ctx)
    if not ctx.caller.registered or not ctx.caller.allowed("upload"):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-permissiondenied", msg.message("action-upload")),
            module=spec.name,
        )
    await check_rate_limit(ctx, "upload", spec.name)
    filekey = params["filekey"] or params["sessionkey"]
    sent = ctx.uploads.get("file")
    sources = [k for k, v in (("file", sent), ("filekey", filekey), ("url", params["url"])) if v]
    if len(sources) != 1:
        names = ["filekey", "file", "url"]
        if not sources:
            raise ApiUsageError("missingparam", msg.missing_one_of(names), module=spec.name)
        raise ApiUsageError("invalidparammix", msg.invalidparammix(names), module=spec.name)
    if params["url"]:
        raise ApiUsageError(
            "copyuploaddisabled",
            msg.api("copyuploaddisabled"),
            module=spec.name,
        )
    user_id = ctx.caller.id
    with change_errors(spec.name):
        source = (
            sent if sent is not None else await ctx.db.read(uploads.from_stash, user_id, filekey)
        )
    if params["filename"] is None and not params["stash"]:
        raise ApiUsageError("missingparam", msg.missingparam("filename"), module=spec.name)
    name = params["filename"] or source.name
    with _upload_refusals(spec.name):
        prepared = await workers.run(uploads.prepare, ctx.site.parser, source, name)
    if params["stash"]:
        key = filekey or await ctx.db.write(uploads.stash, files_dir, user_id, prepared)
        return {"upload": {"result": "Success", "filekey": key, "sessionkey": key}}
    title = prepared.title
    await check_blocked(ctx, spec.name, title)
    warnings = await ctx.db.read(uploads.warnings_for, title, prepared.sha1)
    if warnings and not params["ignorewarnings"]:
        key = filekey or await ctx.db.write(uploads.stash, files_dir, user_id, prepared)
        return {
            "upload": {"result": "Warning", "warnings": warnings, "filekey": key, "sessionkey": key}
        }
    if "nochange" in warnings:
        raise ApiUsageError(
            "fileexists-no-change",
            msg.api("fileexists-no-change", prefixed(ctx, title)),
            module=spec.name,
        )
    with change_errors(spec.name):
        done = await ctx.db.write(
            uploads.publish,
            ctx.site,
            performer(ctx),
            files_dir,
            prepared,
            params["comment"],
            params["text"],
        )
    if filekey:
        await ctx.db.write(uploads.drop_stash, user_id, filekey)
    watch = "watch" if params["watch"] else params["watchlist"]
    await apply_watchlist(ctx, title, watch, "watchuploads")
    info = done.info
    text = prefixed(ctx, title)
    imageinfo: dict[str, Any] = {
        "timestamp": api_expiry(done.timestamp),
        "user": ctx.caller.name,
        "userid": user_id,
        "size": info.size,
        "width": info.width,
        "height": info.height,
    }
    meta = done.metadata
    duration = mediameta.length(meta, info.mime)
    if duration:
        imageinfo["duration"] = duration
    imageinfo |= {
        "comment": done.comment,
        "canonicaltitle": text,
        "url": f"{ctx.site.images_url}{hash_path(title.dbkey)}{url_name(title.dbkey)}",
        "descriptionurl": ctx.site.article_url(text.replace(" ", "_")),
        "sha1": _hex_sha1(done.sha1),
    }
    mediameta.api_fields(imageinfo, meta, info.mime, {"metadata", "commonmetadata"}, "latest")
    imageinfo |= {
        "mime": info.mime,
        "mediatype": info.media_type,
        "bitdepth": info.bits,
    }
    return {"upload": {"result": "Success", "filename": title.dbkey, "imageinfo": imageinfo}}


@contextmanager
def _upload_refusals(module: str) -> Iterator[None]:
    """UploadBase's refusals as ApiUpload::checkVerification reports them."""
    try:
        yield
    except UploadRefused as exc:
        raise ApiUsageError(
            exc.code, msg.api(exc.key, *exc.params), module=module, extra=exc.extra
        ) from exc


def _hex_sha1(base36: str) -> str:
    return f"{int(base36, 36):040x}"


ACTIONS = (
    Action(BLOCK, block, token="csrf"),
    Action(UNBLOCK, unblock, token="csrf"),
    Action(USERRIGHTS, userrights, token="userrights"),
    Action(MANAGETAGS, managetags, token="csrf"),
    Action(TAG, tag, token="csrf"),
    Action(UPLOAD, upload, token="csrf"),
)
