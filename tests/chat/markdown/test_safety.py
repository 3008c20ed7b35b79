"""No input yields script, event handlers, dangerous URLs or unbalanced HTML; rendering never raises."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from hypothesis import given, settings
from hypothesis import strategies as st

from atrium.chat.markdown import (
    LinkableStream,
    Linkifier,
    MentionableGroup,
    MentionableUser,
    RenderContext,
    render_markdown,
)
from atrium.chat.markdown.sanitize import is_safe_html

CTX = RenderContext(
    realm_url="https://chat.example.com",
    users=[MentionableUser(id=1, full_name='Evil "><script>alert(1)</script>')],
    groups=[MentionableGroup(id=2, name="<img src=x onerror=alert(1)>")],
    streams=[LinkableStream(id=3, name='"><svg onload=alert(1)>')],
    linkifiers=[
        Linkifier(id=1, pattern=r"JS-(?P<id>\S+)", url_template="javascript:alert({id})"),
        Linkifier(id=2, pattern=r"T-(?P<id>\S+)", url_template="https://t.example.com/{id}"),
    ],
    realm_emoji={"bad": 'javascript:alert(1)"'},
    translate_emoticons=True,
)

XSS_CORPUS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<svg/onload=alert(1)>",
    '<a href="javascript:alert(1)">x</a>',
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x]( javascript:alert(1))",
    "[x](java\tscript:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](&#x6A;avascript:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[x](vbscript:msgbox(1))",
    '[x](https://example.com" onmouseover="alert(1))',
    "[x](https://example.com'onmouseover='alert(1))",
    '[x](https://a.com "title\\" onclick=\\"alert(1)")',
    "![x](javascript:alert(1))",
    "<javascript:alert(1)>",
    "javascript:alert(1)",
    "<iframe src=javascript:alert(1)>",
    "<<script>script>alert(1)<</script>/script>",
    "<!--<script>alert(1)</script>-->",
    "<![CDATA[<script>alert(1)</script>]]>",
    "```\n</code></pre><script>alert(1)</script>\n```",
    "```html\n<script>alert(1)</script>\n```",
    '```"><script>alert(1)</script>\nx\n```',
    "```spoiler <img src=x onerror=alert(1)>\nbody\n```",
    "`<script>alert(1)</script>`",
    "$$<script>alert(1)</script>$$",
    "```math\n<script>alert(1)</script>\n```",
    "<time:<script>alert(1)</script>>",
    '<time:" onmouseover="alert(1)>',
    '@**Evil "><script>alert(1)</script>**',
    "@*<img src=x onerror=alert(1)>*",
    '#**"><svg onload=alert(1)>**',
    '#**"><svg onload=alert(1)>>"><b onclick=x>**',
    'JS-1 T-"><script>',
    ":bad:",
    "&lt;script&gt;alert(1)&lt;/script&gt;",
    "&#60;script&#62;alert(1)&#60;/script&#62;",
    "http://example.com/<script>alert(1)</script>",
    'http://example.com/"onmouseover="alert(1)',
    'https://example.com/a.png"onerror="alert(1)',
    "[![x](y)](javascript:alert(1))",
    "| <script> | x |\n|---|---|\n| a | <b onclick=x> |",
    "> <script>alert(1)</script>\n> [x](javascript:alert(1))",
    "* <script>alert(1)</script>\n  * [x](vbscript:alert(1))",
    "# <script>alert(1)</script>",
    "\x00<script>\x00alert(1)</script>",
    "<style>body{display:none}</style>",
    '<div style="background:url(javascript:alert(1))">',
    "[x](file:///etc/passwd)",
]

VOID = {"br", "hr", "img"}
FORBIDDEN_TAGS = {"script", "style", "iframe", "object", "embed", "svg", "math", "form", "base"}
DANGEROUS_SCHEMES = ("javascript:", "data:", "vbscript:")


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in FORBIDDEN_TAGS:
            self.problems.append(f"tag {tag}")
        for name, value in attrs:
            allowed_style = name == "style" and re.fullmatch(r"text-align: \w+;", value or "")
            if (name.startswith("on") or name in ("style", "srcdoc")) and not allowed_style:
                self.problems.append(f"attribute {name}")
            if name in ("href", "src", "data-src-fullsize") and value is not None:
                url = re.sub(r"[\x00-\x20]", "", value).lower()
                if url.startswith(DANGEROUS_SCHEMES):
                    self.problems.append(f"url {value}")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack.pop() != tag:
            self.problems.append(f"unbalanced </{tag}>")

    def handle_comment(self, data: str) -> None:
        self.problems.append("comment")

    def handle_decl(self, decl: str) -> None:
        self.problems.append("declaration")

    def handle_pi(self, data: str) -> None:
        self.problems.append("processing instruction")

    def unknown_decl(self, data: str) -> None:
        self.problems.append("declaration")


def assert_safe(output: str) -> None:
    checker = _Checker()
    checker.feed(output)
    checker.close()
    assert checker.problems == [], (checker.problems, output)
    assert checker.stack == [], ("unclosed", checker.stack, output)
    assert is_safe_html(output), output
    assert "<script" not in output.lower()


def test_xss_corpus() -> None:
    for payload in XSS_CORPUS:
        assert_safe(render_markdown(payload, CTX).html)


def test_xss_corpus_escapes_rather_than_drops_text() -> None:
    result = render_markdown("<script>alert(1)</script>", CTX)
    assert result.html == "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"
    assert not result.failed


def test_checker_rejects_what_it_should() -> None:
    for bad in [
        "<p>x",
        "<p>x</div>",
        '<a href="javascript:alert(1)">x</a>',
        '<a href=" jav&#x09;ascript:x">x</a>',
        '<img src="data:image/png;base64,AA">',
        '<p onclick="x">x</p>',
        "<script>x</script>",
        "<!-- x -->",
        '<p style="color: red">x</p>',
        "<p>a < b</p>",
    ]:
        assert not is_safe_html(bad), bad
    assert is_safe_html('<p>a &lt; b <a href="https://x.example">x</a><br></p>')


_TOKENS = [
    *"ab *_~`#>-+.:;!?()[]{}<>|\\/\"'&$@=\n\t 0123456789",
    *[
        "http://",
        "javascript:",
        "data:",
        "@**",
        "#**",
        "```",
        "~~~",
        "$$",
        "<time:",
        "💩",
        "\u200d",
    ],
    *["<script>", "onerror=", "[x](", "](", "**", ":smile:", "> ", "* ", "1. ", "    "],
]
MARKDOWNISH = st.lists(st.sampled_from(_TOKENS), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(MARKDOWNISH)
def test_markdownish_input_renders_safely(text: str) -> None:
    result = render_markdown(text, CTX)
    assert_safe(result.html)
    assert not result.failed, text


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=120))
def test_any_text_renders_safely(text: str) -> None:
    result = render_markdown(text, CTX)
    assert_safe(result.html)
    if not text.strip():
        assert result.html == ""


def test_plain_text_survives() -> None:
    text = "Tom & Jerry <3 \"quotes\" 'single'"
    assert html.unescape(render_markdown(text, RenderContext()).html) == f"<p>{text}</p>"
