"""Cases of Zulip's markdown fixture we do not render identically, and why.

Kept as data: a case leaves this table when the renderer learns the feature,
and the strict xfail in `test_zulip_fixture.py` fails until it does.
"""

KATEX = "needs KaTeX (JavaScript); without it Zulip's tex-error fallback is rendered"


REGULAR_XFAILS: dict[str, str] = {
    "fenced_quotes_inside_mathblock": KATEX,
    "tex_inline": KATEX,
    "tex_complex": KATEX,
    "tex_fenced_math": KATEX,
    "tex_money": KATEX,
    "tex_inline_permissive_spacing": KATEX,
    "tex_safe_script_tag": KATEX,
    "tex_inline_no_markdown_inside": KATEX,
    "tex_display_no_markdown_inside": KATEX,
}

LINKIFY_XFAILS: dict[str, str] = {}
