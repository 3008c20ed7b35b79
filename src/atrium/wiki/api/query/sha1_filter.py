"""The `sha1` and `sha1base36` parameters of the file lists (allimages, filearchive): MediaWiki
stores a file's SHA-1 in base 36, so a hex value is converted before it is compared."""

from __future__ import annotations

import re
from typing import Any

from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.messages import messages as msg

_SHA1 = re.compile(r"^[0-9a-f]{40}$")
_SHA1_36 = re.compile(r"^[0-9a-z]{31}$")


def sha1_condition(spec: Any, column: Any, params: dict[str, Any]) -> Any:
    """`sha1` (hex) or `sha1base36`, stored in base 36; MediaWiki's errors for bad values."""
    if params["sha1"] is not None:
        value = params["sha1"].lower()
        if not _SHA1.match(value):
            raise ApiUsageError(
                "invalidsha1hash",
                msg.api("apierror-invalidsha1hash"),
                module=spec.path,
            )
        return column == base36(int(value, 16))
    if params["sha1base36"] is not None:
        value = params["sha1base36"].lower()
        if not _SHA1_36.match(value):
            raise ApiUsageError(
                "invalidsha1base36hash",
                msg.api("apierror-invalidsha1base36hash"),
                module=spec.path,
            )
        return column == value
    return None


def base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while number:
        number, rem = divmod(number, 36)
        out = digits[rem] + out
    return out.rjust(31, "0")
