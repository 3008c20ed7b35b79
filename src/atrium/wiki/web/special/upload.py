"""`Special:Upload`: upload an image (multipart form: `wpUploadFile`, `wpDestFile`,
`wpUploadDescription`) and go to its file page. The file is verified as every upload is
(uploadcheck.py: the raster types of $wgFileExtensions, whose header must match the extension).
Warnings (a file of that name, a duplicate) stop the upload once, keeping the file in the upload
stash until "Upload anyway"."""

from __future__ import annotations

from starlette.responses import RedirectResponse, Response

from atrium.core import workers
from atrium.wiki.changes import ChangeError, rendered_edit
from atrium.wiki.changes.protection import badaccess
from atrium.wiki.changes.uploadcheck import FILE_EXTENSIONS
from atrium.wiki.changes.uploads import (
    drop_stash,
    from_stash,
    prepare,
    stash,
    warnings_for,
)
from atrium.wiki.files.incoming import Incoming
from atrium.wiki.titles import NS_FILE, Title
from atrium.wiki.web.special.blocknotice import block_notice, block_of
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import (
    Links,
    not_logged_in,
    permission_error,
    render,
    session_failure,
)
from atrium.wiki.web.texts import text as web_text


async def _form(
    ctx: SpecialContext, error: str = "", warnings: dict[str, object] | None = None,
    key: str = "", name: str = "",
) -> Response:  # fmt: skip
    return await render(
        ctx,
        "upload.html",
        "Upload warning" if warnings else "Upload file",
        error=error,
        warnings=warnings or {},
        key=key,
        dest=name or ctx.param("wpDestFile"),
        description=ctx.param("wpUploadDescription"),
        extensions=", ".join(FILE_EXTENSIONS),
        file_title=Title(NS_FILE, (name or "x").replace(" ", "_")),
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
        return await _form(ctx, error=session_failure())
    files_dir = ctx.site.files_dir
    assert files_dir is not None
    key = ctx.param("wpSessionKey")
    try:
        if key:
            source = await ctx.db.read(from_stash, ctx.reader.id, key)
        else:
            source = ctx.files.get("wpUploadFile") or Incoming("", files_dir / "tmp" / "none", 0)
        name = (ctx.param("wpDestFile").strip() or source.name).replace("_", " ")
        file = await workers.run(prepare, ctx.site.parser, source, name)
        title = file.title
        warnings = await ctx.db.read(warnings_for, title, file.sha1)
        if "nochange" in warnings:
            raise ChangeError(
                "fileexists-no-change",
                f"The upload is an exact duplicate of the current version of "
                f"{Links(ctx.site).name(title)}.",
            )
        if warnings and not ctx.flag("wpIgnoreWarning"):
            if not key:
                key = await ctx.db.write(stash, files_dir, ctx.reader.id, file)
            return await _form(ctx, warnings=warnings, key=key, name=title.dbkey.replace("_", " "))
        await rendered_edit.publish_upload(
            ctx.db,
            ctx.site,
            ctx.performer(),
            files_dir,
            file,
            ctx.param("wpUploadDescription")[:500],
            ctx.param("wpUploadDescription") or None,
        )
    except ChangeError as exc:
        # SpecialUpload shows the form again with the error, at 200; an empty file in the
        # form's own words (the API's are the change's).
        shown = web_text("emptyfile") if exc.code == "empty-file" else exc.text
        return await _form(ctx, error=shown)
    if key:
        await ctx.db.write(drop_stash, ctx.reader.id, key)
    return RedirectResponse(Links(ctx.site).page(title), status_code=303)


PAGE = SpecialPage("Upload", "Upload file", "media", handle)
