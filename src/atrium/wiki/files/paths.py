"""Where uploaded files live below the images directory (FileRepo's hashed layout), shared by
the upload code, the API's file URLs and the page renderer."""

from __future__ import annotations

import hashlib
from urllib.parse import quote


def hash_path(name: str) -> str:
    """FileRepo::getHashPath: the first one and two hex digits of the name's MD5."""
    digest = hashlib.md5(name.encode()).hexdigest()
    return f"{digest[0]}/{digest[0:2]}/"


def archive_path(name: str, archive_name: str) -> str:
    """Where an old version is kept, relative to the images directory (`archive/x/xy/…`)."""
    return f"archive/{hash_path(name)}{archive_name}"


def url_name(name: str) -> str:
    """A file or archive name in a URL as PHP's rawurlencode writes it (only `-_.~` and
    alphanumerics kept), which is how FileRepo builds every file and thumbnail URL."""
    return quote(name, safe="")
