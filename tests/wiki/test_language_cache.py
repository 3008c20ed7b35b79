"""`uselang` is the client's to choose: asking for many codes must not grow the process."""

from __future__ import annotations

from atrium.wiki.messages.language import _known_language, language


def test_unknown_codes_are_not_kept_and_known_ones_are() -> None:
    assert language("de").chain[0] == "de"
    kept = _known_language.cache_info().currsize
    for n in range(2000):
        lang = language(f"zz-fuzz-{n}-" + "q" * 200)
        assert lang.chain == ("en",)
    assert _known_language.cache_info().currsize == kept
    assert language("DE") is language("de")
