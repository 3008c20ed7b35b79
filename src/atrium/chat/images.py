"""Checking uploaded images (avatars, realm icon and logos, custom emoji) before they are kept.

Only formats a browser shows safely are accepted: an SVG could carry script, so it is refused,
as Zulip refuses it. Pillow reads the header and verifies the data without decoding every pixel.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import BinaryIO

from PIL import Image, UnidentifiedImageError

from atrium.chat.errors import ChatError

_FORMATS = {
    "PNG": ("image/png", "png"),
    "JPEG": ("image/jpeg", "jpg"),
    "GIF": ("image/gif", "gif"),
    "WEBP": ("image/webp", "webp"),
}


@dataclass(frozen=True)
class ImageInfo:
    content_type: str
    extension: str
    animated: bool


def bad_image() -> ChatError:
    return ChatError("Could not decode image; did you upload an image file?")


def check_image(source: BinaryIO) -> ImageInfo:
    """The image's type, or Zulip's BadImageError message for anything that is not one."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a decompression-bomb warning is a refusal below
            with Image.open(source) as image:
                fmt = image.format or ""
                width, height = image.size
                animated = bool(getattr(image, "is_animated", False))
                image.verify()
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        raise bad_image() from None
    finally:
        source.seek(0)
    if fmt not in _FORMATS or width * height > 50_000_000:
        raise bad_image()
    content_type, extension = _FORMATS[fmt]
    return ImageInfo(content_type, extension, animated)
