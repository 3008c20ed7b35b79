"""TeX math (`$$...$$` inline and ```` ```math ```` blocks) rendered with KaTeX, as Zulip does.

Zulip runs KaTeX's `renderToString(tex, {displayMode})` in Node.js; here the
same KaTeX build (`katex/katex.min.js`, KaTeX 0.16.9, the version Zulip 7-9
ships, MIT licence in `katex/LICENSE`) runs in an embedded QuickJS interpreter,
so the HTML is KaTeX's own, byte for byte. One interpreter per thread, loaded
on first use (~25 ms) and reused; each formula runs under a time and memory
limit. A formula KaTeX rejects (or that hits a limit) gives None, and the
caller emits Zulip's `span.tex-error` fallback. KaTeX runs with its defaults:
`trust` is off, so `\\href`, `\\includegraphics` and `\\html...` make no links,
images or attributes.
"""

from __future__ import annotations

import gzip
import logging
import threading
from collections.abc import Callable
from importlib import resources

import quickjs  # type: ignore[import-untyped]

logger = logging.getLogger(__name__)

# Per formula; KaTeX itself also caps macro expansion (maxExpand) and sizes.
TIME_LIMIT_SECONDS = 1
MEMORY_LIMIT_BYTES = 256 * 1024 * 1024
_RENDER_JS = "(tex, display) => katex.renderToString(tex, {displayMode: display})"

_local = threading.local()


def _katex_source() -> str:
    # Shipped compressed: 76 KB instead of 277 KB of minified JavaScript.
    packed = resources.files(__package__).joinpath("katex/katex.min.js.gz").read_bytes()
    return gzip.decompress(packed).decode("utf-8")


def _renderer() -> Callable[[str, bool], object]:
    render: Callable[[str, bool], object] | None = getattr(_local, "render", None)
    if render is None:
        context = quickjs.Context()
        context.set_memory_limit(MEMORY_LIMIT_BYTES)
        context.eval(_katex_source())
        context.set_time_limit(TIME_LIMIT_SECONDS)
        render = _local.render = context.eval(_RENDER_JS)
        _local.context = context
    return render


def render_tex(tex: str, is_inline: bool = True) -> str | None:
    """KaTeX HTML for `tex`, or None when KaTeX cannot render it."""
    try:
        rendered = _renderer()(tex, not is_inline)
    except quickjs.JSException as exc:
        message = str(exc)
        if not message.startswith("ParseError"):
            # Interrupted or out of memory: start the next formula afresh.
            logger.warning("KaTeX gave up on a formula: %s", message.split("\n", 1)[0][:200])
            _local.render = None
        return None
    return rendered if isinstance(rendered, str) else None
