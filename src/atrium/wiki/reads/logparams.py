"""A log entry's parameters as the API shows them (LogFormatter::formatParametersForApi), for
`list=logevents`, the recent-changes feeds and `action=revisiondelete`'s log items."""

from __future__ import annotations

import json
from typing import Any


def log_params(raw: str | None, log_type: str | None = None, fv: int = 1) -> Any:
    """LogFormatter::formatParametersForApi: the stored parameters are in API form, except the
    rights log's group metadata, which RightsLogFormatter names and whose open expiry it shows as
    `infinity`, and revision deletion's field flags (`old` / `new`), booleans of the
    formatversion (in fv1 only the true ones, as `""`)."""
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    if not isinstance(value, dict):
        return {}
    for side in ("old", "new"):
        flags = value.get(side)
        if fv < 2 and isinstance(flags, dict) and "bitmask" in flags:
            value[side] = {k: "" if v is True else v for k, v in flags.items() if v is not False}
    if log_type == "rights":
        for side in ("old", "new"):
            groups = value.get(f"{side}groups") or []
            meta = value.get(f"{side}metadata")
            if isinstance(meta, list):
                value[f"{side}metadata"] = [
                    {
                        "group": groups[i] if i < len(groups) else "",
                        "expiry": (m or {}).get("expiry") or "infinity",
                    }
                    for i, m in enumerate(meta)
                ]
    return value
