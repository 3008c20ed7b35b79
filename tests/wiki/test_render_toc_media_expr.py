"""Page rendering: the table of contents, `[[File:…]]` images and the `#expr` /
`#ifexpr` parser functions — the HTML compared with what MediaWiki 1.39 produced for the same
wikitext (its image paths /w/images/ are /images/ here), and the expression language checked
against ParserFunctions' documented results and error messages."""

from __future__ import annotations

import io
import re

import httpx
import pytest
from PIL import Image
from tests.wiki.conftest import WikiHarness

from atrium.wiki.files.paths import hash_path
from atrium.wiki.wikitext.expr import evaluate, expr_function

_TOC_HEAD = (
    '<div id="toc" class="toc" role="navigation" aria-labelledby="mw-toc-heading"><input '
    'type="checkbox" role="button" id="toctogglecheckbox" class="toctogglecheckbox" '
    'style="display:none" /><div class="toctitle" lang="en" dir="ltr"><h2 id="mw-toc-heading">'
    'Contents</h2><span class="toctogglespan"><label class="toctogglelabel" '
    'for="toctogglecheckbox"></label></span></div>'
)


async def _render(wiki: WikiHarness, client: httpx.AsyncClient, title: str, text: str) -> str:
    await wiki.edit_page(title, text)
    response = await client.get(f"/wiki/{title}")
    assert response.status_code == 200
    # The page view adds the [edit] links beside headings; the expectations are action=parse's.
    page = re.sub(r'<span class="mw-editsection">.*?</span></span>', "", response.text)
    start = page.index('<div class="mw-parser-output">')
    return page[start:]


@pytest.mark.anyio
async def test_table_of_contents(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    text = "Intro\n== One ==\na\n=== Sub ''it'' ===\nb\n== Two ==\n==== Deep ====\n== One ==\nc"
    page = await _render(wiki, client, "Contents page", text)
    # MediaWiki 1.39's output for the same text (action=parse, no edit links).
    expected = (
        '<div class="mw-parser-output"><p>Intro\n</p>\n' + _TOC_HEAD + "\n<ul>\n"
        '<li class="toclevel-1 tocsection-1"><a href="#One"><span class="tocnumber">1</span> '
        '<span class="toctext">One</span></a>\n<ul>\n'
        '<li class="toclevel-2 tocsection-2"><a href="#Sub_it"><span class="tocnumber">1.1</span>'
        ' <span class="toctext">Sub <i>it</i></span></a></li>\n</ul>\n</li>\n'
        '<li class="toclevel-1 tocsection-3"><a href="#Two"><span class="tocnumber">2</span> '
        '<span class="toctext">Two</span></a>\n<ul>\n'
        '<li class="toclevel-2 tocsection-4"><a href="#Deep"><span class="tocnumber">2.1</span> '
        '<span class="toctext">Deep</span></a></li>\n</ul>\n</li>\n'
        '<li class="toclevel-1 tocsection-5"><a href="#One_2"><span class="tocnumber">3</span> '
        '<span class="toctext">One</span></a></li>\n</ul>\n</div>\n\n'
        '<h2><span class="mw-headline" id="One">One</span></h2>\n<p>a\n</p>\n'
        '<h3><span class="mw-headline" id="Sub_it">Sub <i>it</i></span></h3>\n<p>b\n</p>\n'
        '<h2><span class="mw-headline" id="Two">Two</span></h2>\n'
        '<h4><span class="mw-headline" id="Deep">Deep</span></h4>\n'
        '<h2><span class="mw-headline" id="One_2">One</span></h2>\n<p>c\n</p></div>'
    )
    assert page.startswith(expected)
    placed = await _render(wiki, client, "Placed", "x\n__TOC__\n== A ==\n== B ==")
    assert placed.startswith(
        '<div class="mw-parser-output"><p>x\n</p>\n' + _TOC_HEAD + "\n<ul>\n"
        '<li class="toclevel-1 tocsection-1"><a href="#A"><span class="tocnumber">1</span> '
        '<span class="toctext">A</span></a></li>\n<li class="toclevel-1 tocsection-2"><a '
        'href="#B"><span class="tocnumber">2</span> <span class="toctext">B</span></a></li>\n'
        '</ul>\n</div>\n\n<h2><span class="mw-headline" id="A">A</span></h2>\n'
        '<h2><span class="mw-headline" id="B">B</span></h2></div>'
    )
    few = await _render(wiki, client, "Few", "== A ==\n== B ==\n== C ==")
    assert 'id="toc"' not in few
    forced = await _render(wiki, client, "Forced", "__FORCETOC__\n== A ==")
    assert 'id="toc"' in forced and "__FORCETOC__" not in forced
    many = "__NOTOC__\n" + "".join(f"== H{i} ==\n" for i in range(5))
    suppressed = await _render(wiki, client, "Suppressed", many)
    assert 'id="toc"' not in suppressed and "__NOTOC__" not in suppressed


def _jpeg(size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (120, 50, 30)).save(out, "JPEG")
    return out.getvalue()


@pytest.mark.anyio
async def test_file_images(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    uploaded = await client.post(
        "/w/api.php",
        data={"action": "upload", "filename": "Photo.jpg", "token": token, "format": "json"},
        files={"file": ("Photo.jpg", _jpeg((300, 200)), "image/jpeg")},
    )
    assert uploaded.json()["upload"]["result"] == "Success"
    src = f"/images/{hash_path('Photo.jpg')}Photo.jpg"
    thumb = f"/images/thumb/{hash_path('Photo.jpg')}Photo.jpg"
    cases = {
        "[[File:Photo.jpg|thumb|A ''caption'']]": (
            '<div class="mw-parser-output"><div class="thumb tright"><div class="thumbinner" '
            'style="width:302px;"><a href="/wiki/File:Photo.jpg" class="image"><img alt="" '
            f'src="{src}" decoding="async" width="300" height="200" class="thumbimage" /></a>  '
            '<div class="thumbcaption"><div class="magnify"><a href="/wiki/File:Photo.jpg" '
            'class="internal" title="Enlarge"></a></div>A <i>caption</i></div></div></div></div>'
        ),
        "[[File:Photo.jpg]]": (
            '<div class="mw-parser-output"><p><a href="/wiki/File:Photo.jpg" class="image"><img '
            f'alt="Photo.jpg" src="{src}" decoding="async" width="300" height="200" /></a>\n'
            "</p></div>"
        ),
        "[[File:Photo.jpg|frame|left|Framed]]": (
            '<div class="mw-parser-output"><div class="thumb tleft"><div class="thumbinner" '
            'style="width:302px;"><a href="/wiki/File:Photo.jpg" class="image"><img alt="" '
            f'src="{src}" decoding="async" width="300" height="200" class="thumbimage" /></a>  '
            '<div class="thumbcaption">Framed</div></div></div></div>'
        ),
        "[[File:Photo.jpg|frameless|border]]": (
            '<div class="mw-parser-output"><p><a href="/wiki/File:Photo.jpg" class="image"><img '
            f'alt="Photo.jpg" src="{src}" decoding="async" width="300" height="200" '
            'class="thumbborder" /></a>\n</p></div>'
        ),
        "[[File:Nope Missing.png|thumb|Cap]]": (
            '<div class="mw-parser-output"><div class="thumb tright"><div class="thumbinner" '
            'style="width:182px;"><a href="/w/index.php?title=Special:Upload&amp;wpDestFile='
            'Nope_Missing.png" class="new" title="File:Nope Missing.png">File:Nope Missing.png'
            '</a>  <div class="thumbcaption">Cap</div></div></div></div>'
        ),
        "[[File:Photo.jpg|100px|Tip text]]": (
            '<div class="mw-parser-output"><p><a href="/wiki/File:Photo.jpg" class="image" '
            f'title="Tip text"><img alt="Tip text" src="{thumb}/100px-Photo.jpg" decoding="async" '
            f'width="100" height="67" srcset="{thumb}/150px-Photo.jpg 1.5x, '
            f'{thumb}/200px-Photo.jpg 2x" /></a>\n</p></div>'
        ),
        "[[File:Photo.jpg|x50px|link=Main Page|alt=Alt words]]": (
            '<div class="mw-parser-output"><p><a href="/wiki/Main_Page" title="Main Page"><img '
            f'alt="Alt words" src="{thumb}/75px-Photo.jpg" decoding="async" width="75" '
            f'height="50" srcset="{thumb}/113px-Photo.jpg 1.5x, {thumb}/150px-Photo.jpg 2x" />'
            "</a>\n</p></div>"
        ),
    }
    for number, (text, expected) in enumerate(cases.items()):
        page = await _render(wiki, client, f"Images {number}", text)
        assert page.startswith(expected), (text, page[: len(expected) + 80])
    served = await client.get(f"{thumb}/100px-Photo.jpg")
    with Image.open(io.BytesIO(served.content)) as scaled:
        assert scaled.size == (100, 67)


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("1+2*3", "7"), ("(1+2)*3", "9"), ("2^10", "1024"), ("1/3", "0.33333333333333"),
        ("10 mod 3", "1"), ("-7 mod 3", "-1"), ("7 fmod 2.5", "2"), ("3.14159 round 2", "3.14"),
        ("-2.5 round 0", "-3"), ("trunc -3.7", "-3"), ("floor -3.2", "-4"), ("ceil 3.2", "4"),
        ("not 0", "1"), ("1 and 0", "0"), ("0 or 2", "1"), ("1=1", "1"), ("2<>3", "1"),
        ("2 >= 3", "0"), ("1e3", "1000"), ("2e-2", "0.02"), ("pi", "3.1415926535898"),
        ("abs -4", "4"), ("1e20", "1.0E+20"), ("5/2", "2.5"), ("", ""), ("2 \u2212 5", "-3"),
    ],
)  # fmt: skip
def test_expr_values(expression: str, value: str) -> None:
    assert evaluate(expression) == value


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("1/0", "Division by zero."),
        ("5 mod 0", "Division by zero."),
        ("1+", "Expression error: Missing operand for +."),
        ("(1", "Expression error: Unclosed bracket."),
        ("1)", "Expression error: Unexpected closing bracket."),
        ("foo", 'Expression error: Unrecognized word "foo".'),
        ("1 + * 2", "Expression error: Unexpected * operator."),
        ("3 5", "Expression error: Unexpected number."),
        ("1 # 2", 'Expression error: Unrecognized punctuation character "&#35;".'),
        ("ln 0", "Invalid argument for ln: <= 0."),
    ],
)
def test_expr_errors(expression: str, message: str) -> None:
    assert expr_function(expression) == f'<strong class="error">{message}</strong>'


@pytest.mark.anyio
async def test_expr_in_pages(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Template:Double", "{{#expr: {{{1}}} * 2 }}")
    text = (
        "A {{Double|21}} B {{#ifexpr: 3 > 2 | yes | no }} C {{#ifexpr: 1 - 1 | yes | no }} "
        "D {{#expr: 1 / 0 }} E {{#ifexpr: | yes | empty }}"
    )
    page = await _render(wiki, client, "Sums", text)
    assert page.startswith(
        '<div class="mw-parser-output"><p>A 42 B yes C no D <strong class="error">Division by '
        "zero.</strong> E empty\n</p></div>"
    )
