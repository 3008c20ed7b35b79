"""Inline previews of linked images.

A link whose path ends in an image extension gets Zulip's
`div.message_inline_image` after its paragraph (inside a list item when the
link is in one), pointing at the server's `/thumbnail` endpoint; nothing is
fetched while rendering. A link to an MP4 or WebM video gets Zulip's
`div.message_inline_video` with a `<video preload="metadata">` whose source
goes through the external-content (Camo) proxy, as Zulip's `get_camo_url` does.
With no proxy configured a video gets no preview, only its link: the readers'
browsers would otherwise fetch it from a host the sender chose, telling it
their addresses (Zulip installs Camo with every server). A paragraph
that held nothing but the bare link is replaced by the preview. Links inside
quotes get no preview, each URL is previewed once, and a message with many
links gets none.
"""

from __future__ import annotations

import hashlib
import hmac
import mimetypes
from collections import deque
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit
from xml.etree.ElementTree import Element, SubElement

from markdown.treeprocessors import Treeprocessor

IMAGE_EXTENSIONS = (".bmp", ".gif", ".jpe", ".jpeg", ".jpg", ".png", ".webp")
PREVIEW_CLASSES = frozenset({"message_inline_image", "message_inline_ref"})
MAX_PREVIEWS_PER_MESSAGE = 24
# Zulip's test: `mimetypes.guess_type(url)` is one of these. Python's built-in
# table only, so the result does not depend on the host's /etc/mime.types.
VIDEO_MIMETYPES = frozenset({"video/mp4", "video/webm"})
_MIMETYPES = mimetypes.MimeTypes()


def thumbnail_url(url: str, size: str) -> str:
    return "/thumbnail?" + urlencode({"url": url, "size": size})


# The proxy's URI and key (ATRIUM_CAMO_URL, ATRIUM_CAMO_KEY), set when the service starts;
# a render context may name its own.
_camo = ("", "")


def configure_camo(uri: str | None, key: str | None) -> None:
    """Zulip's CAMO_URI and CAMO_KEY; a proxy without a key is no proxy."""
    global _camo
    _camo = (uri or "", key or "") if uri and key else ("", "")


def camo_url(url: str, camo_uri: str, camo_key: str) -> str:
    """Zulip's `get_camo_url`: the proxied URL, or `url` itself without a proxy."""
    if not camo_uri:
        return url
    encoded = url.encode()
    digest = hmac.new(camo_key.encode(), encoded, hashlib.sha1).hexdigest()
    return f"{camo_uri}{digest}/{encoded.hex()}"


def is_video_url(url: str) -> bool:
    lowered = url.lower()
    # Cheap first: every URL guessed as one of those types names its extension.
    if ".mp4" not in lowered and ".webm" not in lowered:
        return False
    return _MIMETYPES.guess_type(url)[0] in VIDEO_MIMETYPES


def is_image_url(url: str) -> bool:
    if "." not in url:
        return False
    parts = urlsplit(url)
    if parts.netloc == "pasteboard.co":
        return False
    return parts.path.lower().endswith(IMAGE_EXTENSIONS)


@dataclass
class _FoundLink:
    grandparent: Element | None
    parent: Element
    a: Element
    in_blockquote: bool


def _find_links(root: Element) -> list[_FoundLink]:
    found: list[_FoundLink] = []
    queue: deque[tuple[Element | None, Element, bool]] = deque([(None, root, False)])
    while queue:
        grandparent, parent, quoted = queue.popleft()
        for child in parent:
            queue.append((parent, child, quoted or child.tag == "blockquote"))
            if child.tag == "a" and child.get("href"):
                found.append(_FoundLink(grandparent, parent, child, quoted))
    return found


def _insertion_index(grandparent: Element, parent: Element, index: int) -> int:
    # After the paragraph and after previews already added for its links, in order.
    links = {a.get("href") for a in parent.iter("a")}
    while True:
        index += 1
        if index >= len(grandparent):
            return index
        uncle = grandparent[index]
        if uncle.tag != "div" or not set(uncle.get("class", "").split()) & PREVIEW_CLASSES:
            return index
        uncle_link = uncle.find("a")
        if uncle_link is None or uncle_link.get("href") not in links:
            return index


def _add_preview(
    target: Element, url: str, title: str | None, index: int | None, video_src: str | None
) -> None:
    if index is None:
        div = SubElement(target, "div")
    else:
        div = Element("div")
        target.insert(index, div)
    if video_src is None:
        div.set("class", "message_inline_image")
    else:
        div.set("class", "message_inline_image message_inline_video")
    a = SubElement(div, "a")
    a.set("href", url)
    if title:
        a.set("title", title)
    if video_src is None:
        img = SubElement(a, "img")
        img.set("data-src-fullsize", thumbnail_url(url, "full"))
        img.set("src", thumbnail_url(url, "thumbnail"))
    else:
        video = SubElement(a, "video")
        video.set("src", video_src)
        video.set("preload", "metadata")
        video.set("data-video-original-url", url)


class InlineImagePreviewProcessor(Treeprocessor):  # type: ignore[misc]
    def run(self, root: Element) -> None:
        if not self.md.zulip_ctx.inline_image_preview:
            return
        links = _find_links(root)
        previewable = {f.a.get("href") for f in links if not f.in_blockquote}
        if not previewable or len(previewable) > MAX_PREVIEWS_PER_MESSAGE:
            return
        done: set[str] = set()
        ctx = self.md.zulip_ctx
        camo_uri, camo_key = (ctx.camo_uri, ctx.camo_key) if ctx.camo_uri else _camo
        for link in links:
            url = link.a.get("href", "")
            if link.in_blockquote or url in done:
                continue
            done.add(url)
            if is_image_url(url):
                self._inline(root, link, url, None)
            elif camo_uri and is_video_url(url):
                self._inline(root, link, url, camo_url(url, camo_uri, camo_key))

    def _inline(self, root: Element, link: _FoundLink, url: str, video_src: str | None) -> None:
        text = link.a.text
        url_is_text = text is None or text == url
        title = None if url_is_text else text
        parent, a = link.parent, link.a
        if parent.tag == "li":
            _add_preview(parent, url, title, None, video_src)
            if not parent.text and not a.tail and url_is_text:
                parent.remove(a)
        elif parent.tag == "p" and link.grandparent is not None:
            grandparent = link.grandparent
            position = next((i for i, el in enumerate(grandparent) if el is parent), None)
            index = None if position is None else _insertion_index(grandparent, parent, position)
            _add_preview(grandparent, url, title, index, video_src)
            if len(parent) == 1 and parent.text in (None, "", "\n") and not a.tail and url_is_text:
                grandparent.remove(parent)
        else:
            _add_preview(root, url, title, None, video_src)
