"""What `prop=langlinks` and `prop=iwlinks` share: the URL of an interwiki target, the
deprecated `url` flag, and the error for a filter given without its companion parameter."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    ModuleSpec,
)
from atrium.wiki.api.query.pageset import QueryRun
from atrium.wiki.messages import messages as msg


def interwiki_url(prefix: str, title: str) -> str:
    return f"https://{prefix}.wikipedia.org/wiki/" + quote(title.replace(" ", "_"), safe=":/()")


def mustusewith(spec: ModuleSpec, param: str, other: str) -> ApiUsageError:
    return ApiUsageError(
        "invalidparammix",
        msg.api("apierror-invalidparammix-mustusewith", spec.prefix + param, spec.prefix + other),
        module=spec.path,
    )


def url_props(q: QueryRun, spec: ModuleSpec, params: dict[str, Any]) -> set[str]:
    props = set(params["prop"])
    if params["url"]:
        props.add("url")
    return props
