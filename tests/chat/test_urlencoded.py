"""`params.parse_urlencoded`: urllib's parse_qsl answer, whatever the text."""

from __future__ import annotations

from urllib.parse import parse_qsl, quote

from hypothesis import given
from hypothesis import strategies as st

from atrium.chat.params import parse_urlencoded

# Text made of the characters that matter (escapes, '+', '&', '=', backslashes, stray '%'),
# plus any character at all.
_PIECES = st.one_of(
    st.sampled_from(["%", "%2", "%zz", "%4G", "%%41", "+", "&", "=", "\\", "\\x41", "%5C", "%5c"]),
    st.text(min_size=1, max_size=3),
    st.text(min_size=1, max_size=8).map(lambda t: quote(t, safe="")),
    st.binary(min_size=1, max_size=4).map(lambda b: "".join(f"%{x:02X}" for x in b)),
)


@given(st.lists(_PIECES, max_size=12).map("".join))
def test_same_as_parse_qsl(text: str) -> None:
    assert parse_urlencoded(text) == parse_qsl(text, keep_blank_values=True)


def test_examples() -> None:
    assert parse_urlencoded("narrow=%5B%7B%22operand%22%3A%22caf%C3%A9+au+lait%22%7D%5D&a") == [
        ("narrow", '[{"operand":"café au lait"}]'),
        ("a", ""),
    ]
    # Invalid UTF-8 after unescaping is replaced, stray '%' is kept, as urllib does.
    assert parse_urlencoded("x=%FF100%&&y=%5c%zz") == [("x", "\ufffd100%"), ("y", "\\%zz")]
