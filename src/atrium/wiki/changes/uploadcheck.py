"""UploadBase's verification, which every way of storing a file goes through: `uploads.stash`
and `uploads.publish` take only what `uploads.prepare` made after calling `verify`, so the API's
file and filekey uploads and Special:Upload share it.

With MediaWiki 1.39's defaults only the raster types of `$wgFileExtensions` are accepted (PNG, GIF,
JPEG, WebP; SVG is not among them), and only when the file's own header says the type its
extension names: a file whose content is HTML, script or anything a browser could sniff as HTML is
refused whatever it is called. A name holding what `wfStripIllegalFilenameChars` filters (`/`,
`\\`, `:` and the characters no title may hold) is refused, so no file lands in a directory of the
client's choosing."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from atrium.wiki.changes import ChangeError
from atrium.wiki.files.sniff import HTML_DOCTYPE, HTML_TAGS, sniff_mime
from atrium.wiki.messages.messages import Message, num, plain, text_list
from atrium.wiki.titles import NS_FILE, Title, TitleParser

FILE_EXTENSIONS = ("png", "gif", "jpg", "jpeg", "webp")  # $wgFileExtensions
EXTENSION_MIME = {
    "png": "image/png",
    "gif": "image/gif",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "webp": "image/webp",
}
RASTER_MIMES = frozenset(EXTENSION_MIME.values())
# Types MimeAnalyzer knows for other extensions, so that their content is matched too.
_OTHER_EXTENSION_MIME = {"svg": "image/svg+xml", "html": "text/html", "htm": "text/html"}
# $wgProhibitedFileExtensions: refused wherever they sit in the name ("x.html.png" included).
PROHIBITED_EXTENSIONS = frozenset(
    [
        "html",
        "htm",
        "js",
        "jsb",
        "mhtml",
        "mht",
        "xhtml",
        "xht",
        "php",
        "phtml",
        "php3",
        "php4",
        "php5",
        "phps",
        "phar",
        "shtml",
        "jhtml",
        "pl",
        "py",
        "cgi",
        "exe",
        "scr",
        "dll",
        "msi",
        "vbs",
        "bat",
        "com",
        "pif",
        "cmd",
        "vxd",
        "cpl",
        "xml",
    ]
)
# $wgMimeTypeExclusions
MIME_EXCLUSIONS = frozenset(
    [
        "text/html",
        "application/javascript",
        "text/javascript",
        "text/x-javascript",
        "application/x-shellscript",
        "application/x-php",
        "text/x-php",
        "text/x-python",
        "text/x-perl",
        "text/x-bash",
        "text/x-sh",
        "text/x-csh",
        "text/scriptlet",
        "application/x-msdownload",
        "application/x-msmetafile",
        "application/java",
        "application/x-java-applet",
    ]
)
MAX_NAME_BYTES = 240  # oi_archive_name holds a timestamp, "!" and the name in 255 bytes
# Characters outside Title::legalChars, and $wgIllegalFileChars (":", "/", "\").
_ILLEGAL_CHARS = re.compile(r"[^ %!\"$&'()*,\-.0-9;=?@A-Z^_`a-z~+\x80-\U0010ffff]|[:/\\]")
# UploadBase::detectScript: script types and URLs (beside what sniff.py takes for HTML).
_SCRIPT_PATTERNS = (
    re.compile(rb"type\s*=\s*['\"]?\s*(?:\w*/)?(?:ecma|java)", re.IGNORECASE),
    re.compile(rb"(?:href|src|data)\s*=\s*['\"]?\s*(?:ecma|java)script:", re.IGNORECASE),
    re.compile(rb"url\s*\(\s*['\"]?\s*(?:ecma|java)script:", re.IGNORECASE),
)


class UploadRefused(ChangeError):
    """A refused upload, with the members ApiUpload adds to its error (`details`, `filetype`,
    `allowed`, `invalidparameter`...)."""

    def __init__(
        self, code: str, key: str, params: tuple[Any, ...] = (), extra: dict[str, Any] | None = None
    ) -> None:
        super().__init__(code, Message(key, params).text, key, params)
        self.extra = extra or {}


@dataclass(frozen=True)
class CheckedName:
    title: Title
    extension: str  # the final one, lower case


def _verification_error(key: str, *params: str) -> UploadRefused:
    return UploadRefused(
        "verification-error",
        key,
        tuple(plain(p) for p in params),
        {"details": [key, *params]},
    )


def _banned(final: str, bad: list[str]) -> UploadRefused:
    shown = bad or [final]
    extra: dict[str, Any] = {"filetype": final, "allowed": list(FILE_EXTENSIONS)}
    if bad:
        extra["blacklisted"] = bad
    return UploadRefused(
        "filetype-banned",
        "filetype-banned-type",
        (
            text_list(shown, "comma"),
            text_list(FILE_EXTENSIONS, "comma"),
            num(len(FILE_EXTENSIONS)),
            num(len(shown)),
        ),
        extra,
    )


def _name(parser: TitleParser, desired: str) -> tuple[Title | None, str, UploadRefused | None]:
    """UploadBase::getTitle: the title, the final extension, and the refusal of the name."""
    given = parser.parse_or_none(desired)
    filtered = given.dbkey if given is not None and given.ns == NS_FILE else desired
    if len(filtered.encode()) > MAX_NAME_BYTES:
        return None, "", UploadRefused(
            "filename-toolong", "filename-toolong", (), {"invalidparameter": "filename"}
        )  # fmt: skip
    # MediaWiki would store the name with these characters made "-" (and warn); they are
    # refused instead, so that a name means the same file on every path, and the filtered name
    # is offered as MediaWiki's `illegal-filename` offers it.
    suggested = _ILLEGAL_CHARS.sub("-", filtered)
    title = parser.parse_or_none(filtered, NS_FILE) if suggested == filtered else None
    if title is None or title.ns != NS_FILE or title.fragment:
        refused = UploadRefused(
            "illegal-filename",
            "illegal-filename",
            (),
            {"invalidparameter": "filename", "filename": suggested.replace(" ", "_")},
        )
        return None, "", refused
    parts = title.dbkey.split(".")
    extensions = [p.strip().lower() for p in parts[1:]]
    final = extensions[-1] if extensions else ""
    if final == "":
        refused = UploadRefused(
            "filetype-missing", "filetype-missing", (), {"invalidparameter": "filename"}
        )
        return title, final, refused
    bad = [e for e in extensions if e in PROHIBITED_EXTENSIONS]
    if bad or final not in FILE_EXTENSIONS:
        return title, final, _banned(final, bad)
    return title, final, None


def _has_script(head: bytes) -> bool:
    """UploadBase::detectScript on the first kilobyte (all of it for text)."""
    chunk = head.lower()
    for bom, codec in ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if chunk.startswith(bom):
            chunk = chunk.decode(codec, "replace").encode()
    chunk = chunk.strip()
    if HTML_DOCTYPE.search(chunk) or any(tag in chunk for tag in HTML_TAGS):
        return True
    return any(pattern.search(chunk) for pattern in _SCRIPT_PATTERNS)


def _verify_content(head: bytes, extension: str) -> str:
    """UploadBase::verifyFile: the type must not be excluded, nothing in the file may look like
    HTML or script, and the extension must name the detected type. Returns the type."""
    mime = sniff_mime(head)
    if mime in MIME_EXCLUSIONS:
        raise _verification_error("filetype-badmime", mime)
    if _has_script(head[:1024]):
        raise _verification_error("uploadscripted")
    expected = EXTENSION_MIME.get(extension) or _OTHER_EXTENSION_MIME.get(extension)
    if extension and (expected != mime if expected else mime in RASTER_MIMES):
        raise _verification_error("filetype-mime-mismatch", extension, mime)
    return mime


def check_name(parser: TitleParser, desired: str) -> CheckedName:
    """The name alone (for the stash, where the content is checked too): refused as
    UploadBase::validateName refuses it."""
    title, extension, refused = _name(parser, desired)
    if refused is not None or title is None:
        raise refused or UploadRefused("illegal-filename", "illegal-filename")
    return CheckedName(title, extension)


def verify(parser: TitleParser, desired: str, head: bytes, size: int, max_size: int) -> CheckedName:
    """UploadBase::verifyUpload: an empty or too large file, then the content (against the
    name's final extension), then the name."""
    if size == 0:
        raise UploadRefused("empty-file", "empty-file")
    if size > max_size:
        raise UploadRefused("file-too-large", "file-too-large")
    title, extension, refused = _name(parser, desired)
    _verify_content(head, extension)
    if refused is not None or title is None:
        raise refused or UploadRefused("illegal-filename", "illegal-filename")
    return CheckedName(title, extension)


def verify_partial(head: bytes) -> None:
    """UploadBase::verifyPartialFile, on each chunk of a chunked upload as it arrives: the
    chunk's own type must not be excluded and it must hold nothing that looks like HTML or
    script. (The whole file is verified as any upload once the last chunk is in.)"""
    mime = sniff_mime(head)
    if mime in MIME_EXCLUSIONS:
        raise _verification_error("filetype-badmime", mime)
    if _has_script(head[:1024]):
        raise _verification_error("uploadscripted")
