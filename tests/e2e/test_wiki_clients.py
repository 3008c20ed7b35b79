"""The wiki driven by the real `mwclient` and `pywikibot` packages against `atrium serve`.

Each client logs in, reads site information, edits a page, reads its text back and iterates a
generator. pywikibot runs in a subprocess of its own (it keeps global configuration). The tests
share one server per backend, so each edits pages of names no other test uses.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import mwclient
import pytest

from tests.e2e.seed import create_wiki_users, prepare_data_dir
from tests.e2e.server import atrium_env, running_server

pytestmark = pytest.mark.e2e

READY = "/w/api.php?action=query&meta=siteinfo&format=json"


@contextmanager
def serving_wiki(
    data_dir: Path, database_url: str | None, sqlite_templates: Path
) -> Iterator[tuple[str, str]]:
    """`atrium serve` of a wiki with an administrator and a bot: its URL and the bot password."""
    # The accounts `atrium wiki create-user` and `bot-password` would make, written in-process.
    settings = prepare_data_dir(data_dir, database_url, sqlite_templates)
    bot_password = create_wiki_users(
        settings,
        [
            ("Admin", "admin-pass-123", ["sysop", "bureaucrat"]),
            ("Robot", "robot-pass-123", ["bot"]),
        ],
        bot_password_for=("Robot", "e2e"),
    )
    env = atrium_env(data_dir, database_url)
    with running_server(env, READY) as server:
        yield server.url, bot_password


@pytest.fixture(scope="module")
def wiki_server(
    module_wiki_database_url: str | None,
    tmp_path_factory: pytest.TempPathFactory,
    sqlite_templates: Path,
) -> Iterator[tuple[str, str]]:
    """One server per module and backend: its tests edit pages of their own names."""
    data_dir = tmp_path_factory.mktemp("wiki-clients") / "atrium-data"
    data_dir.mkdir()
    with serving_wiki(data_dir, module_wiki_database_url, sqlite_templates) as served:
        yield served


def test_mwclient_login_siteinfo_edit_read_generator(wiki_server: tuple[str, str]) -> None:
    base, _ = wiki_server
    host = base.removeprefix("http://")
    site = mwclient.Site(host, path="/w/", scheme="http")
    assert site.site["generator"].startswith("MediaWiki 1.39")
    assert site.namespaces[10] == "Template"
    site.login("Admin", "admin-pass-123")
    assert site.logged_in
    assert "sysop" in site.groups
    page = site.pages["Mwclient test"]
    assert not page.exists
    page.edit("Hello from '''mwclient''' with a [[Link target]].", summary="first")
    page = site.pages["Mwclient test"]
    assert page.exists
    assert page.text() == "Hello from '''mwclient''' with a [[Link target]]."
    page.edit("Second version.", summary="second")
    assert site.pages["Mwclient test"].text() == "Second version."
    for index in range(3):
        site.pages[f"Mwclient generated {index}"].edit(f"Page {index}", summary="seed")
    # Two pages per request: the generator continues once; each batch is in page-id order. (The
    # prefix: the module's other tests make pages on the same wiki.)
    pages = site.allpages(prefix="Mwclient ", generator=True, api_chunk_size=2)
    titles = [p.name for p in pages]
    assert titles[:2] == ["Mwclient generated 0", "Mwclient generated 1"]
    assert sorted(titles[2:]) == ["Mwclient generated 2", "Mwclient test"]
    revisions = list(site.pages["Mwclient test"].revisions(prop="ids|comment|user"))
    assert [r["comment"] for r in revisions] == ["second", "first"]
    assert {r["user"] for r in revisions} == {"Admin"}


PYWIKIBOT_SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    os.environ["PYWIKIBOT_NO_USER_CONFIG"] = "2"
    import pywikibot
    from pywikibot import config
    from pywikibot.family import AutoFamily

    api, password, workdir = sys.argv[1], sys.argv[2], sys.argv[3]
    family = AutoFamily("atrium", api)
    config.usernames["atrium"]["atrium"] = "Robot"
    config.put_throttle = 0
    config.max_retries = 0
    pwfile = os.path.join(workdir, "passwords.py")
    with open(pwfile, "w") as f:
        f.write(f"('Robot', BotPassword('e2e', '{password}'))\\n")
    os.chmod(pwfile, 0o600)
    config.password_file = pwfile
    site = pywikibot.Site("atrium", family, user="Robot")
    site.login()
    result = {"user": site.user(), "generator": site.siteinfo["generator"]}
    result["namespaces"] = sorted(site.namespaces)
    page = pywikibot.Page(site, "Pywikibot test")
    page.text = "Written by [[pywikibot]]."
    page.save(summary="pywikibot edit", botflag=True)
    result["text"] = pywikibot.Page(site, "Pywikibot test").get(force=True)
    for i in range(3):
        extra = pywikibot.Page(site, f"Pywikibot page {i}")
        extra.text = f"bot {i}"
        extra.save(summary="seed")
    result["allpages"] = [p.title() for p in site.allpages(prefix="Pywikibot ", total=10)]
    print("RESULT " + json.dumps(result))
    """
)


def test_pywikibot_login_siteinfo_edit_read_generator(
    wiki_server: tuple[str, str], tmp_path: Path
) -> None:
    base, bot_password = wiki_server
    script = tmp_path / "bot.py"
    script.write_text(PYWIKIBOT_SCRIPT)
    workdir = tmp_path / "pwb"
    workdir.mkdir()
    completed = subprocess.run(
        [sys.executable, str(script), f"{base}/w/api.php", bot_password, str(workdir)],
        cwd=workdir,
        env={"PYWIKIBOT_DIR": str(workdir), "PATH": "/usr/bin:/bin", "HOME": str(workdir)},
        capture_output=True,
        text=True,
        timeout=180,
    )
    lines = [line for line in completed.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, f"pywikibot failed:\n{completed.stdout}\n{completed.stderr}"
    import json

    result = json.loads(lines[0].removeprefix("RESULT "))
    assert result["user"] == "Robot"
    assert result["generator"].startswith("MediaWiki 1.39")
    assert result["namespaces"] == list(range(-2, 16))
    assert result["text"] == "Written by [[pywikibot]]."
    # One generator batch, which MediaWiki (and so pywikibot) returns in page-id order.
    assert result["allpages"] == [
        "Pywikibot test",
        "Pywikibot page 0",
        "Pywikibot page 1",
        "Pywikibot page 2",
    ]


def _png(width: int, height: int) -> bytes:
    import struct
    import zlib

    rows = b"".join(
        b"\x00" + bytes(v for x in range(width) for v in (x * 30 % 256, y * 50 % 256, 90))
        for y in range(height)
    )

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )  # fmt: skip


def test_mwclient_reads_pages_props_and_images(wiki_server: tuple[str, str]) -> None:
    import hashlib
    import io

    import httpx

    base, _ = wiki_server
    site = mwclient.Site(base.removeprefix("http://"), path="/w/", scheme="http")
    site.login("Admin", "admin-pass-123")
    site.pages["Template:Badge"].edit("badge {{{1|}}}", summary="t")
    site.pages["Reader"].edit(
        "Text with {{Badge|x}} and [[Linked one]].\n[[Category:Read]] [[Category:Tested]]",
        summary="first",
    )
    site.pages["Reader"].edit(
        "Text with {{Badge|y}} and [[Linked one]].\n[[Category:Read]] [[Category:Tested]]",
        summary="second",
    )
    site.pages["Pointer"].edit("See [[Reader]].", summary="p")
    site.pages["User of badge"].edit("{{Badge}}", summary="u")
    page = site.pages["Reader"]
    assert page.text() == (
        "Text with {{Badge|y}} and [[Linked one]].\n[[Category:Read]] [[Category:Tested]]"
    )
    revisions = list(page.revisions(prop="ids|comment|content"))
    assert [r["comment"] for r in revisions] == ["second", "first"]
    assert "{{Badge|x}}" in revisions[1]["*"]
    assert [c.name for c in page.categories()] == ["Category:Read", "Category:Tested"]
    assert [t.name for t in page.templates()] == ["Template:Badge"]
    assert [p.name for p in page.backlinks()] == ["Pointer"]
    assert sorted(p.name for p in site.pages["Template:Badge"].embeddedin()) == [
        "Reader",
        "User of badge",
    ]
    image = _png(6, 4)
    done = site.upload(io.BytesIO(image), filename="Client pic.png", description="from mwclient")
    assert done["result"] == "Success", done
    info = site.images["Client pic.png"].imageinfo
    assert (info["width"], info["height"], info["size"]) == (6, 4, len(image))
    assert info["sha1"] == hashlib.sha1(image).hexdigest() and info["mime"] == "image/png"
    assert info["user"] == "Admin" and info["comment"] == "from mwclient"
    assert httpx.get(info["url"]).content == image


PYWIKIBOT_READ_SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    os.environ["PYWIKIBOT_NO_USER_CONFIG"] = "2"
    import pywikibot
    from pywikibot import config
    from pywikibot.family import AutoFamily

    api, password, workdir = sys.argv[1], sys.argv[2], sys.argv[3]
    family = AutoFamily("atrium", api)
    config.usernames["atrium"]["atrium"] = "Robot"
    config.put_throttle = 0
    config.max_retries = 0
    pwfile = os.path.join(workdir, "passwords.py")
    with open(pwfile, "w") as f:
        f.write(f"('Robot', BotPassword('e2e', '{password}'))\\n")
    os.chmod(pwfile, 0o600)
    config.password_file = pwfile
    site = pywikibot.Site("atrium", family, user="Robot")
    site.login()
    tpl = pywikibot.Page(site, "Template:Marker")
    tpl.text = "marker {{{1|}}}"
    tpl.save(summary="tpl")
    page = pywikibot.Page(site, "Bot read")
    page.text = "One {{Marker|a}} [[Category:Bots]]"
    page.save(summary="one")
    page = pywikibot.Page(site, "Bot read")
    page.text = "Two {{Marker|b}} [[Category:Bots]] [[Category:Reading]]"
    page.save(summary="two")
    fresh = pywikibot.Page(site, "Bot read")
    result = {
        "text": fresh.text,
        "categories": [c.title() for c in fresh.categories()],
        "templates": [t.title() for t in fresh.templates()],
        "revisions": [
            [r.comment, r.text] for r in fresh.revisions(content=True)
        ],
    }
    print("RESULT " + json.dumps(result))
    """
)


def test_pywikibot_reads_text_categories_templates_revisions(
    wiki_server: tuple[str, str], tmp_path: Path
) -> None:
    import json

    base, bot_password = wiki_server
    script = tmp_path / "read.py"
    script.write_text(PYWIKIBOT_READ_SCRIPT)
    workdir = tmp_path / "pwb"
    workdir.mkdir()
    completed = subprocess.run(
        [sys.executable, str(script), f"{base}/w/api.php", bot_password, str(workdir)],
        cwd=workdir,
        env={"PYWIKIBOT_DIR": str(workdir), "PATH": "/usr/bin:/bin", "HOME": str(workdir)},
        capture_output=True,
        text=True,
        timeout=180,
    )
    lines = [line for line in completed.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, f"pywikibot failed:\n{completed.stdout}\n{completed.stderr}"
    result = json.loads(lines[0].removeprefix("RESULT "))
    assert result["text"] == "Two {{Marker|b}} [[Category:Bots]] [[Category:Reading]]"
    assert result["categories"] == ["Category:Bots", "Category:Reading"]
    assert result["templates"] == ["Template:Marker"]
    assert result["revisions"] == [
        ["two", "Two {{Marker|b}} [[Category:Bots]] [[Category:Reading]]"],
        ["one", "One {{Marker|a}} [[Category:Bots]]"],
    ]
