"""TeX math (`$$...$$` inline and ```` ```math ```` blocks) rendered as MathML.

Zulip renders math with KaTeX; browsers render MathML Core natively, so here `latex2mathml` turns
the TeX into a `<math>` element, wrapped in KaTeX's outer `span.katex` (and `span.katex-display`
for a block) so that clients looking for those classes still find the formula. A formula that
KaTeX would reject gives None, and the caller emits Zulip's `span.tex-error` fallback: the
converter fails, leaves a control sequence it does not know as text (KaTeX's "Undefined control
sequence"), or builds a fraction, script or root short of an argument. The MathML is rebuilt from
the parsed tree with an allowlist of attributes, so nothing in a formula can add a link, a style
or a script (KaTeX's `trust` off).
"""

from __future__ import annotations

import html
import logging
import xml.etree.ElementTree as ET

from latex2mathml.converter import convert

from atrium.chat.markdown.sanitize import ALLOWED_ATTRIBUTES, MATHML_TAGS, URL_ATTRIBUTES

logger = logging.getLogger(__name__)

_NS = "{http://www.w3.org/1998/Math/MathML}"
MAX_TEX_LENGTH = 10000  # longer formulas are shown as errors rather than converted
# Elements whose children are their arguments, and how many each needs.
_ARITY = {
    "mfrac": 2,
    "msup": 2,
    "msub": 2,
    "msubsup": 3,
    "munder": 2,
    "mover": 2,
    "munderover": 3,
    "mroot": 2,
}
# What the output check (`sanitize`) lets through: other attributes (`href`, `form` …) are
# dropped, and a formula that needs an element it does not know is an error.
_ATTRIBUTES = ALLOWED_ATTRIBUTES - URL_ATTRIBUTES - {"class", "style", "xmlns"}


class _Rejected(Exception):
    """A formula KaTeX would not render."""


def _serialize(element: ET.Element, out: list[str]) -> None:
    tag = element.tag.removeprefix(_NS)
    if tag not in MATHML_TAGS:
        raise _Rejected(tag)
    if tag in _ARITY and len(element) != _ARITY[tag]:
        raise _Rejected(f"{tag} needs {_ARITY[tag]} arguments")
    text = element.text or ""
    if tag == "mi" and text.startswith("\\"):
        raise _Rejected(f"undefined control sequence {text}")
    attrs = "".join(
        f' {name}="{html.escape(value, quote=True)}"'
        for name, value in sorted(element.attrib.items())
        if name in _ATTRIBUTES
    )
    out.append(f"<{tag}{attrs}>{html.escape(text, quote=False)}")
    for child in element:
        _serialize(child, out)
        out.append(html.escape(child.tail or "", quote=False))
    out.append(f"</{tag}>")


def render_tex(tex: str, is_inline: bool = True) -> str | None:
    """The formula as MathML inside KaTeX's wrapper spans, or None when it cannot be rendered."""
    if len(tex) > MAX_TEX_LENGTH:
        return None
    try:
        tree = ET.fromstring(convert(tex, display="inline" if is_inline else "block"))
        out: list[str] = []
        _serialize(tree, out)
    except _Rejected:
        return None
    except Exception as exc:  # the converter's parse errors have no common base class
        logger.debug("formula not rendered: %s", type(exc).__name__)
        return None
    math = "".join(out).replace("<math ", '<math xmlns="http://www.w3.org/1998/Math/MathML" ', 1)
    if is_inline:
        return f'<span class="katex">{math}</span>'
    return f'<span class="katex-display"><span class="katex">{math}</span></span>'
