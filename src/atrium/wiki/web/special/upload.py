"""`Special:Upload`: upload an image (multipart form: `wpUploadFile`, `wpDestFile`,
`wpUploadDescription`) and go to its file page. Only the formats whose content is checked here
are accepted (PNG, GIF, JPEG: the extension must match the file's own header), so nothing a
browser would run is ever served from `/images/`. Warnings (a file of that name, a duplicate)
stop the upload once, keeping the file in the upload stash until "Upload anyway"."""

from __future__ import annotations

from starlette.responses import RedirectResponse, Response

from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.protection import badaccess
from atrium.wiki.changes.uploads import (
    drop_stash,
    from_stash,
    inspect,
    publish,
    stash,
    warnings_for,
)
from atrium.wiki.titles import NS_FILE, Title
from atrium.wiki.web.special.blocknotice import block_notice, block_of
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import (
    Links,
    bad_token,
    not_logged_in,
    permission_error,
    render,
)

EXTENSIONS = {"png": "image/png", "gif": "image/gif", "jpg": "image/jpeg", "jpeg": "image/jpeg"}


async def _form(
    ctx: SpecialContext, error: str = "", status: int = 200, warnings: dict[str, object] | None = None,
    key: str = "", name: str = "",
) -> Response:  # fmt: skip
    return await render(
        ctx,
        "upload.html",
        "Upload warning" if warnings else "Upload file",
        status,
        error=error,
        warnings=warnings or {},
        key=key,
        dest=name or ctx.param("wpDestFile"),
        description=ctx.param("wpUploadDescription"),
        extensions=", ".join(EXTENSIONS),
        file_title=Title(NS_FILE, (name or "x").replace(" ", "_")),
    )


def _check_type(name: str, data: bytes) -> None:
    """UploadBase::verifyFile for the permitted types: the extension and the content agree."""
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if ext not in EXTENSIONS:
        raise ChangeError(
            "filetype-banned",
            f'".{ext}" is not a permitted file type. '
            f"Permitted file types are: {', '.join(EXTENSIONS)}.",
        )
    info = inspect(data, name)
    # Only a recognised header makes a bitmap; otherwise the MIME type is the name's guess.
    mime = info.mime if info.media_type == "BITMAP" else "unknown/unknown"
    if mime != EXTENSIONS[ext]:
        raise ChangeError(
            "filetype-mime-mismatch",
            f'File extension ".{ext}" does not match the detected MIME type of the file ({mime}).',
        )


async def handle(ctx: SpecialContext) -> Response:
    if not ctx.reader.registered:
        return await not_logged_in(ctx, "upload files")
    if not ctx.reader.allowed("upload"):
        return await permission_error(ctx, "upload files", badaccess(ctx.site, "upload"))
    block = await block_of(ctx, None)
    if block is not None:
        return await block_notice(ctx, block)
    if ctx.method != "POST":
        return await _form(ctx)
    if not ctx.token_ok():
        return await bad_token(ctx)
    files_dir = ctx.site.files_dir
    assert files_dir is not None
    key = ctx.param("wpSessionKey")
    try:
        if key:
            original, data = await ctx.db.read(from_stash, ctx.reader.id, key)
        else:
            original, data = ctx.files.get("wpUploadFile", ("", b""))
        name = (ctx.param("wpDestFile").strip() or original).replace("_", " ")
        if not data:
            raise ChangeError("empty-file", "The file you submitted was empty.")
        parsed = ctx.title_of(name)
        if parsed is None or "/" in name:
            raise ChangeError("illegal-filename", "The filename is not allowed.")
        title = Title(NS_FILE, parsed.dbkey)
        _check_type(title.dbkey, data)
        warnings = await ctx.db.read(warnings_for, title, data)
        if "nochange" in warnings:
            raise ChangeError(
                "fileexists-no-change",
                f"The upload is an exact duplicate of the current version of "
                f"{Links(ctx.site).name(title)}.",
            )
        if warnings and not ctx.flag("wpIgnoreWarning"):
            if not key:
                key = await ctx.db.write(stash, files_dir, ctx.reader.id, name, data)
            return await _form(ctx, warnings=warnings, key=key, name=title.dbkey.replace("_", " "))
        await ctx.db.write(
            publish,
            ctx.site,
            ctx.performer(),
            files_dir,
            title,
            data,
            ctx.param("wpUploadDescription")[:500],
            ctx.param("wpUploadDescription") or None,
        )
    except ChangeError as exc:
        return await _form(ctx, error=exc.text, status=400)
    if key:
        await ctx.db.write(drop_stash, ctx.reader.id, key)
    return RedirectResponse(Links(ctx.site).page(title), status_code=303)


PAGE = SpecialPage("Upload", "Upload file", "media", handle)
