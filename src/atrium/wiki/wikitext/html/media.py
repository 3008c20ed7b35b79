"""`[[File:…]]` in page text as MediaWiki 1.39's legacy parser shows it (Parser::makeImage,
Linker::makeImageLink and makeThumbLink2): the options (`thumb`, `frame`, `frameless`, `border`,
alignment, `upright`, `NNNpx`/`xNNNpx`/`NNNxNNNpx`, `link=`, `alt=`, `class=`), the caption (the
last part that is not an option), scaled sizes (bitmaps upscaled only in a plain image's attributes), `srcset` for 1.5x and 2x, and a
missing file as a red link to Special:Upload.

Every value that reaches the HTML is escaped here; the caption arrives already rendered."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import quote

from atrium.wiki.files.paths import hash_path, url_name
from atrium.wiki.files.thumb_cache import too_big

# thumbnail_error with thumbnail_toobigimagearea ($wgMaxImageArea as `size-megapixel`)
TOO_BIG_TEXT = "Error creating thumbnail: File with dimensions greater than 12.5 MP"
DEFAULT_THUMB_WIDTH = 300  # $wgThumbLimits[$wgDefaultUserOptions['thumbsize']]
MISSING_THUMB_WIDTH = 180
_SIZE = re.compile(r"^(\d*)(?:x(\d+))?\s*px$")
_ALIGN = ("left", "right", "center", "none")
_VALIGN = ("baseline", "sub", "super", "top", "text-top", "middle", "bottom", "text-bottom")
_URL_SAFE = "!$&()*,-.:;=@_~"


# Sanitizer::escapeClass: ASCII punctuation, spaces and a leading digit or hyphen become `_`.
_CLASS_JUNK = re.compile(r"""(^[0-9\-])|[\x00-\x20!"#$%&'()*+,./:;<=>?@\[\]^`{|}~]|\xa0""")
_UNDERSCORES = re.compile(r"_+")


def escape_class(name: str) -> str:
    """A class name as MediaWiki's Sanitizer::escapeClass makes it: it can only be a name."""
    return _UNDERSCORES.sub("_", _CLASS_JUNK.sub("_", name)).rstrip("_")


@dataclass(frozen=True)
class FileSize:
    width: int
    height: int
    bitmap: bool  # scaled by the wiki (media type BITMAP); others are shown at any size


FileLookup = Callable[[set[str]], dict[str, FileSize]]


@dataclass
class ImageOptions:
    """What the parts of `[[File:Name|…]]` asked for."""

    frame: str = ""  # "", "thumb", "frame", "frameless"
    border: bool = False
    align: str = ""
    valign: str = ""
    upright: float | None = None
    width: int | None = None
    height: int | None = None
    link: str | None = None  # None: the file page; "": no link
    alt: str | None = None
    classes: list[str] = field(default_factory=list)
    caption: str = ""


def parse_options(parts: list[str]) -> ImageOptions:
    """Parser::parseLinkParameter and friends: each part an option (case-sensitive, as the
    `img_*` magic words are), the last other one the caption."""
    opts = ImageOptions()
    for raw in parts:
        part = raw.strip()
        low = part  # the image option magic words are case-sensitive
        if low in ("thumb", "thumbnail"):
            opts.frame = "thumb"
        elif low in ("frame", "framed", "enframed"):
            opts.frame = "frame"
        elif low == "frameless":
            opts.frame = "frameless"
        elif low == "border":
            opts.border = True
        elif low in _ALIGN:
            opts.align = low
        elif low in _VALIGN:
            opts.valign = low
        elif low == "upright" or low.startswith(("upright=", "upright ")):
            factor = low[7:].lstrip(" =")
            try:
                opts.upright = float(factor) if factor else 0.75
            except ValueError:
                opts.caption = raw
        elif (size := _SIZE.match(low)) and (size.group(1) or size.group(2)):
            if size.group(1):
                opts.width = int(size.group(1))
            if size.group(2):
                opts.height = int(size.group(2))
        elif low.startswith("link="):
            opts.link = part[5:].strip()
        elif low.startswith("alt="):
            opts.alt = part[4:]
        elif low.startswith("class="):
            escaped = (escape_class(c) for c in html.unescape(part[6:]).split())
            opts.classes = [c for c in escaped if c]
        else:
            opts.caption = raw
    return opts


def _fit_box_width(width: int, height: int, box_height: int) -> int:
    ideal = width * box_height / height
    rounded_up = math.ceil(ideal)
    if math.floor(rounded_up * height / width + 0.5) > box_height:
        return math.floor(ideal)
    return rounded_up


def _scale_height(width: int, height: int, target: int) -> int:
    return max(1, math.floor(height * target / width + 0.5))


def display_size(file: FileSize, opts: ImageOptions) -> tuple[int, int]:
    """The shown size: the asked width (or thumb default), fitted to a height box; frames
    always show the original. A thumb or frameless bitmap is never shown above its original
    size; a plain one is (MediaWiki's client-scaled thumbnail: the original file, the asked
    size in the HTML attributes)."""
    width, height = file.width, file.height
    if width <= 0 or height <= 0 or opts.frame == "frame":
        return width, height
    target = opts.width
    if target is None and opts.frame in ("thumb", "frameless"):
        base = DEFAULT_THUMB_WIDTH
        if opts.upright is not None:
            base = int(round(base * opts.upright, -1))
        target = base
    if target is None:
        target = width
    if opts.height is not None:
        target = min(target, _fit_box_width(width, height, opts.height))
    if file.bitmap and target >= width and opts.frame in ("thumb", "frameless"):
        return width, height
    target = max(1, target)
    return target, _scale_height(width, height, target)


class MediaLinks:
    """Builds the HTML of file links for one page, with the wiki's URL layout."""

    def __init__(
        self,
        page_url: Callable[[str], str],
        link_url: Callable[[str], tuple[str, str] | None],
        images_path: str = "/images/",
        script_path: str = "/w",
        on_thumb: Callable[[str, int], None] | None = None,
    ) -> None:
        self.page_url = page_url  # prefixed dbkey -> URL of the page
        self.link_url = link_url  # `link=` target -> (href, title) or None for no link
        self.images_path = images_path
        self.script_path = script_path
        self.on_thumb = on_thumb  # told each scaled width a URL is given out for

    def _file_url(self, name: str) -> str:
        return f"{self.images_path}{hash_path(name)}{url_name(name)}"

    def _thumb_url(self, name: str, width: int) -> str:
        if self.on_thumb is not None:
            self.on_thumb(name, width)
        safe = url_name(name)
        return f"{self.images_path}thumb/{hash_path(name)}{safe}/{width}px-{safe}"

    def _src(self, name: str, file: FileSize, width: int) -> str:
        if not file.bitmap or width >= file.width:
            return self._file_url(name)
        return self._thumb_url(name, width)

    def _img(self, name: str, file: FileSize, size: tuple[int, int], alt: str, css: str) -> str:
        if file.bitmap and size[0] < file.width and too_big(file.width, file.height):
            # TransformTooBigImageAreaError: MediaWiki shows its thumbnail error, scales nothing.
            return (
                f'<div class="MediaTransformError" style="width: {max(size[0], 120)}px; '
                f'height: {max(size[1], 120)}px; display:inline-block;">{TOO_BIG_TEXT}</div>'
            )
        src = self._src(name, file, size[0])
        extra = f' class="{html.escape(css)}"' if css else ""
        srcset = []
        for factor, label in ((1.5, "1.5x"), (2.0, "2x")):
            url = self._src(name, file, math.floor(size[0] * factor + 0.5))
            if url != src:
                srcset.append(f"{html.escape(url)} {label}")
        dense = f' srcset="{", ".join(srcset)}"' if srcset else ""
        return (
            f'<img alt="{html.escape(alt)}" src="{html.escape(src)}" decoding="async" '
            f'width="{size[0]}" height="{size[1]}"{extra}{dense} />'
        )

    def _wrap(self, inner: str, dbkey: str, opts: ImageOptions, title_attr: str) -> str:
        if opts.link == "":
            return inner
        if opts.link is not None:
            target = self.link_url(opts.link)
            if target is None:
                return inner
            href, title = target
            return f'<a href="{html.escape(href)}" title="{html.escape(title)}">{inner}</a>'
        file_page = html.escape(self.page_url(f"File:{dbkey}"))
        titled = f' title="{html.escape(title_attr)}"' if title_attr else ""
        return f'<a href="{file_page}" class="image"{titled}>{inner}</a>'

    def missing(self, dbkey: str, opts: ImageOptions, caption_html: str) -> str:
        """A file that does not exist: the link to upload it (in a thumb box when framed)."""
        shown = html.escape(f"File:{dbkey.replace('_', ' ')}")
        upload = (
            f"{self.script_path}/index.php?title=Special:Upload&wpDestFile="
            f"{quote(dbkey, safe=_URL_SAFE)}"
        )
        link = f'<a href="{html.escape(upload)}" class="new" title="{shown}">{shown}</a>'
        if opts.frame in ("thumb", "frame"):
            width = (opts.width or MISSING_THUMB_WIDTH) + 2
            return self._box(opts, width, link, f'<div class="thumbcaption">{caption_html}</div>')
        return link

    def _box(self, opts: ImageOptions, outer: int, inner: str, caption: str) -> str:
        align = opts.align or "right"
        box = (
            f'<div class="thumb t{align}"><div class="thumbinner" style="width:{outer}px;">'
            f"{inner}  {caption}</div></div>"
        )
        return f'<div class="center">{box}</div>' if align == "center" else box

    def image(
        self, dbkey: str, file: FileSize, opts: ImageOptions, caption_html: str, caption_text: str
    ) -> str:
        """An existing file: inline, floated, or in a thumb/frame box with its caption."""
        name = dbkey
        size = display_size(file, opts)
        if opts.frame in ("thumb", "frame"):
            # Parser::makeImage: a framed image takes its alt text from the name only when
            # there is no caption.
            default_alt = "" if caption_text else dbkey.replace("_", " ")
            alt = opts.alt if opts.alt is not None else default_alt
            img = self._img(name, file, size, alt, "thumbimage")
            magnify = ""
            if opts.frame == "thumb":
                page = html.escape(self.page_url(f"File:{dbkey}"))
                magnify = (
                    f'<div class="magnify"><a href="{page}" class="internal" title="Enlarge">'
                    "</a></div>"
                )
            caption = f'<div class="thumbcaption">{magnify}{caption_html}</div>'
            return self._box(opts, size[0] + 2, self._wrap(img, dbkey, opts, ""), caption)
        alt = opts.alt if opts.alt is not None else caption_text or dbkey.replace("_", " ")
        css = " ".join((["thumbborder"] if opts.border else []) + opts.classes)
        img = self._img(name, file, size, alt, css)
        if opts.valign:
            img = img.replace("<img ", f'<img style="vertical-align: {opts.valign}" ', 1)
        linked = self._wrap(img, dbkey, opts, caption_text)
        if opts.align == "center":
            return f'<div class="center"><div class="floatnone">{linked}</div></div>'
        if opts.align in ("left", "right", "none"):
            return f'<div class="float{opts.align}">{linked}</div>'
        return linked
