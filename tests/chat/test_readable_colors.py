"""Code colours made readable: every colour of the client's Pygments stylesheet reaches WCAG
AA (4.5:1) on the code background of its theme, and a colour that already does is kept."""

from __future__ import annotations

import re

from atrium.chat.web.assets import (
    DARK_CODE_BACKGROUNDS,
    LIGHT_CODE_BACKGROUNDS,
    _pygments_css,
)
from atrium.chat.web.readable_colors import _rgb, contrast, readable

COLOR = re.compile(r"(?<![-\w])color:\s*#([0-9a-f]{6})\b")


def test_every_code_colour_reaches_aa_in_both_themes() -> None:
    for line in _pygments_css().splitlines():
        grounds = (
            DARK_CODE_BACKGROUNDS if line.startswith("[data-theme") else LIGHT_CODE_BACKGROUNDS
        )
        if not line.startswith((".codehilite", '[data-theme="dark"] .codehilite')):
            continue
        for color in COLOR.findall(line):
            for ground in grounds:
                assert contrast(_rgb(color), _rgb(ground.lstrip("#"))) >= 4.5, (line, ground)


def test_readable_colours_are_kept_and_faint_ones_moved_just_enough() -> None:
    assert readable("000000", ["#ffffff"]) == "#000000"
    faint = readable("aaaaaa", ["#ffffff"])
    assert contrast(_rgb(faint.lstrip("#")), _rgb("ffffff")) >= 4.5
    assert faint != "#000000"
    assert readable("333333", ["#1b1e24"]) != "#333333"
