"""Text colours brought to WCAG AA contrast (4.5:1) against the backgrounds they are drawn on.

Pygments' styles pick their colours for looks, and a few (comments, operators) fall short of
AA on the client's code background; each such colour is moved towards black (on a light
background) or white (on a dark one) just far enough.
"""

from __future__ import annotations

import re

AA = 4.5
_COLOR = re.compile(r"(?<![-\w])color:\s*#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b")


def _rgb(hex_color: str) -> tuple[float, float, float]:
    if len(hex_color) == 3:
        hex_color = "".join(c * 2 for c in hex_color)
    r, g, b = (int(hex_color[i : i + 2], 16) for i in (0, 2, 4))
    return float(r), float(g), float(b)


def _luminance(rgb: tuple[float, float, float]) -> float:
    def channel(value: float) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.03928 else float(((v + 0.055) / 1.055) ** 2.4)

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def readable(hex_color: str, backgrounds: list[str]) -> str:
    """`hex_color`, or the nearest colour towards black or white with AA contrast on each of
    the `backgrounds` (all light or all dark)."""
    color = _rgb(hex_color)
    grounds = [_rgb(b.lstrip("#")) for b in backgrounds]
    target = 0.0 if _luminance(grounds[0]) > 0.18 else 255.0
    for step in range(21):
        mix = step / 20
        candidate = tuple(c + (target - c) * mix for c in color)
        rgb = (candidate[0], candidate[1], candidate[2])
        if all(contrast(rgb, ground) >= AA + 0.05 for ground in grounds):
            return "#" + "".join(f"{round(c):02x}" for c in rgb)
    return "#000000" if target == 0 else "#ffffff"


def readable_css(css: str, backgrounds: list[str]) -> str:
    """Every `color: #…` of a stylesheet made readable on `backgrounds`."""
    return _COLOR.sub(lambda m: f"color: {readable(m.group(1), backgrounds)}", css)
