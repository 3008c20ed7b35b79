"""The warning an upload under a file name would get for that name (UploadBase::getExistsWarning)
and its HTML (SpecialUpload::getExistsWarning), as `prop=imageinfo&iiprop=uploadwarning` shows
it: the file exists, only its description page does, a file with a similar name (another
extension) exists, the name looks like a thumbnail's, or it starts like a camera's file name."""

from __future__ import annotations

import re

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.reads.page_view import render_text
from atrium.wiki.site import Site
from atrium.wiki.titles import NS_FILE, Title

# MediaWiki 1.39's English messages (the {{GENDER:|you}} already resolved).
_MESSAGES = {
    "fileexists": (
        "A file with this name exists already, please check <strong>[[:$1]]</strong> if you are "
        "not sure if you want to overwrite it.\n[[$1|thumb]]"
    ),
    "filepageexists": (
        "The description page for this file has already been created at <strong>[[:$1]]</strong>"
        ", but no file with this name currently exists.\nThe summary you enter will not appear on "
        "the description page.\nTo make your summary appear there, you will need to manually edit"
        " it.\n[[$1|thumb]]"
    ),
    "fileexists-extension": (
        "A file with a similar name exists: [[$2|thumb]]\n* Name of the uploading file: "
        "<strong>[[:$1]]</strong>\n* Name of the existing file: <strong>[[:$2]]</strong>\n"
        "Do you perhaps want to use a more distinctive name?"
    ),
    "fileexists-thumbnail-yes": (
        "The file seems to be an image of reduced size <em>(thumbnail)</em>.\n[[$1|thumb]]\n"
        "Please check the file <strong>[[:$1]]</strong>.\nIf the checked file is the same image "
        "of original size it is not necessary to upload an extra thumbnail."
    ),
    "file-thumbnail-no": (
        "The filename begins with <strong>$1</strong>.\nIt seems to be an image of reduced size "
        "<em>(thumbnail)</em>.\nIf you have this image in full resolution upload this one, "
        "otherwise change the filename please."
    ),
    "filename-bad-prefix": (
        'The name of the file you are uploading begins with <strong>"$1"</strong>, which is a '
        "non-descriptive name typically assigned automatically by digital cameras.\nPlease "
        "choose a more descriptive name for your file."
    ),
}
# The default `filename-prefix-blacklist` message.
_CAMERA_PREFIXES = ("CIMG", "DSC_", "DSCF", "DSCN", "DUW", "IMG", "JD", "MGP", "PICT")
# File::normalizeExtension's squished forms.
_SQUISH = {"htm": "html", "jpeg": "jpg", "mpeg": "mpg", "tiff": "tif", "ogv": "ogg"}


def _file_exists(conn: Conn, name: str) -> bool:
    img = schema.image
    return conn.scalar(sa.select(img.c.img_name).where(img.c.img_name == name)) is not None


def _is_thumb_name(name: str) -> bool:
    """UploadBase::isThumbName: "NNpx-…" or "NNNpx-…"."""
    part = name.rsplit(".", 1)[0] if "." in name[1:] else name
    return (part[3:6] == "px-" or part[2:5] == "px-") and bool(re.fullmatch(r"\d{2}", part[:2]))


def exists_warning(conn: Conn, name: str) -> tuple[str, tuple[str, ...]] | None:
    """The warning (message key, file names or prefix) for uploading to File:`name`."""
    if _file_exists(conn, name):
        return "fileexists", (name,)
    page = schema.page
    has_page = conn.scalar(
        sa.select(page.c.page_id).where(page.c.page_namespace == NS_FILE, page.c.page_title == name)
    )
    if has_page is not None:
        return "filepageexists", (name,)
    if "." in name[1:]:
        part, extension = name.rsplit(".", 1)
    else:
        part, extension = name, ""
    normalized = _SQUISH.get(extension.lower(), extension.lower())
    if normalized != extension and _file_exists(conn, f"{part}.{normalized}"):
        return "fileexists-extension", (name, f"{part}.{normalized}")
    img = schema.image
    similar = conn.scalar(
        sa.select(img.c.img_name)
        .where(img.c.img_name.startswith(f"{part}.", autoescape=True))
        .order_by(img.c.img_name)
        .limit(1)
    )
    if similar is not None:
        return "fileexists-extension", (name, str(similar))
    if _is_thumb_name(name):
        original = f"{part[part.index('-') + 1 :]}.{extension}"
        if _file_exists(conn, original):
            return "fileexists-thumbnail-yes", (original, name)
        return "file-thumbnail-no", (part[: part.index("-") + 1],)
    for prefix in _CAMERA_PREFIXES:
        if part.startswith(prefix):
            return "filename-bad-prefix", (prefix,)
    return None


def exists_warning_html(conn: Conn, site: Site, title: Title) -> str:
    """The warning as the upload form shows it ("" when there is none), parsed on the file's
    page."""
    found = exists_warning(conn, title.dbkey)
    if found is None:
        return ""
    key, args = found
    text = _MESSAGES[key]
    for index, arg in enumerate(args, start=1):
        shown = site.parser.prefixed_text(NS_FILE, arg) if key != "file-thumbnail-no" else arg
        if key == "filename-bad-prefix":
            shown = arg
        text = text.replace(f"${index}", shown)
    rendered = render_text(conn, site, title, text).html
    return rendered.removeprefix('<div class="mw-parser-output">').removesuffix("</div>")
