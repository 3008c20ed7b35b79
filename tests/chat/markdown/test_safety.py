"""No input yields script, event handlers, dangerous URLs or unbalanced HTML; rendering never raises."""

from __future__ import annotations

import dataclasses
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


class _MathChecker(_Checker):
    """With math on: MathML (and SVG or styles, were they to appear), still no script, handler or
    bad URL."""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        css = [(n, v) for n, v in attrs if n == "style"]
        for _, value in css:
            if re.search(r"[()\\'\"]|url|expression|import", value or "", re.IGNORECASE):
                self.problems.append(f"style {value}")
        if tag in ("math", "svg"):
            tag = "span"
        super().handle_starttag(tag, [(n, v) for n, v in attrs if n != "style"])

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # KaTeX's `<path .../>` and `<line .../>`.
        if tag not in ("path", "line"):
            self.problems.append(f"self-closed {tag}")
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        super().handle_endtag("span" if tag in ("math", "svg") else tag)


def assert_safe(output: str, checker: _Checker | None = None) -> None:
    checker = checker or _Checker()
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


MATH_CTX = dataclasses.replace(CTX, render_math=True)


def test_xss_corpus_with_math() -> None:
    for payload in [
        *XSS_CORPUS,
        r"$$\href{javascript:alert(1)}{x}$$",
        r"$$\url{javascript:alert(1)}$$",
        r"$$\includegraphics{javascript:alert(1)}$$",
        r"$$\htmlClass{x}{y}\htmlStyle{background:url(javascript:alert(1))}{y}$$",
        r"$$\color{red;background:url(javascript:alert(1))}{x}$$",
        "$$\\text{</span><script>alert(1)</script>}$$",
        "```math\n\\sqrt{x} \\cancel{y} \\colorbox{red}{z}\n```",
        r"$$\def\a{\a\a}\a$$",
    ]:
        assert_safe(render_markdown(payload, MATH_CTX).html, _MathChecker())


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from([*_TOKENS, "\\", "{", "}", "^", "_", "\\sqrt", "\\color"]), max_size=30
    )
)
def test_math_renders_safely(tokens: list[str]) -> None:
    result = render_markdown("$$" + "".join(tokens) + "$$", MATH_CTX)
    assert_safe(result.html, _MathChecker())
    assert not result.failed
