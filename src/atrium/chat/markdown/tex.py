"""TeX math (`$$...$$` inline and ```` ```math ```` blocks).

Zulip renders math with KaTeX (JavaScript). This server has no KaTeX, so every
formula takes Zulip's own fallback: the source, escaped, in a
`span.tex-error`, which is exactly what Zulip emits when KaTeX cannot render a
formula. `render_tex` is the one seam where a KaTeX service would plug in.
"""

from __future__ import annotations


def render_tex(tex: str, is_inline: bool = True) -> str | None:
    """KaTeX HTML for `tex`, or None when it cannot be rendered (always, here)."""
    del tex, is_inline
    return None
