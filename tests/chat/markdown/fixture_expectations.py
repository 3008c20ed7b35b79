"""Cases of Zulip's markdown fixture we do not render identically, and why.

Kept as data: a case leaves this table when the renderer learns the feature,
and the strict xfail in `test_zulip_fixture.py` fails until it does.
"""

KATEX = "needs KaTeX (JavaScript); without it Zulip's tex-error fallback is rendered"
VIDEO = "video previews need the external-content (camo) proxy URL, which this server lacks"

EMOJI = "needs Zulip's full emoji name table; only a seed subset is vendored (emoji_codes.json)"

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
    "only_inline_video": VIDEO,
    "only_named_inline_video": VIDEO,
    "random_emoji_1": EMOJI,
    "emoji_sequence_one": EMOJI,
    "emoji_sequence_two": EMOJI,
    "unrecognized_emoji_sequence_three": EMOJI,
    "emojis_without_space": EMOJI,
    "emojis_newline": EMOJI,
    "miscellaneous_symbols_and_pictographs": EMOJI,
    "miscellaneous_and_dingbats_emoji": EMOJI,
    "supplemental_symbols_and_pictographs": EMOJI,
    "miscellaneous_symbols_and_arrows": EMOJI,
    "unicode_emoji_without_space": EMOJI,
    "unicode_emojis_new_line": EMOJI,
    "new_emoji_test": EMOJI,
    "emoji_pipeline_newline": EMOJI,
    "emoji_pipeline_link": EMOJI,
}

LINKIFY_XFAILS: dict[str, str] = {}
