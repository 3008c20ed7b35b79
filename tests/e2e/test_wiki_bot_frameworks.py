"""pywikibot and mwclient as a new user runs them, against a real `atrium serve`.

pywikibot: `generate_family_file` from the Main Page URL (no hand-written family), then the
`pwb` scripts `replace` and `upload`, and `page.expand_text()`, `page.get_parsed_page()` and
`site.compare()` in a bot script. mwclient: `site.parse()`, `site.expandtemplates()` and
`page.text(expandtemplates=True)`. pywikibot runs in subprocesses (it keeps global state).
"""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import sys
import textwrap
import zlib
from collections.abc import Iterator
from pathlib import Path

import mwclient
import pytest

from tests.e2e.server import atrium, atrium_env, running_server

pytestmark = pytest.mark.e2e

READY = "/w/api.php?action=query&meta=siteinfo&format=json"
BOT_GRANTS = "basic,highvolume,editpage,createeditmovepage,uploadfile,uploadeditmovefile"


@pytest.fixture(scope="module")
def fresh_wiki(
    module_wiki_database_url: str | None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    """A new wiki as `atrium serve` starts it (with its Main Page), an administrator and a bot
    with a bot password; one per module and backend: the tests' pages have their own titles,
    or the same text under the same title (Template:Greet)."""
    data_dir = tmp_path_factory.mktemp("bot-frameworks") / "atrium-data"
    data_dir.mkdir()
    env = atrium_env(data_dir, module_wiki_database_url, ATRIUM_WIKI_MAIN_PAGE="1")
    atrium(env, "wiki", "create-user", "Admin", "--password", "admin-pass-123", "--groups", "sysop")
    atrium(env, "wiki", "create-user", "Robot", "--password", "robot-pass-123", "--groups", "bot")
    output = atrium(env, "wiki", "bot-password", "Robot", "e2e", "--grants", BOT_GRANTS)
    match = re.search(r"password (\w+)", output)
    assert match, output
    with running_server(env, READY) as server:
        yield server.url, match.group(1)


def _png() -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    rows = b"\x00\xff\x00\x00\x00\xff\x00" * 2
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )  # fmt: skip


def _run(args: list[str], workdir: Path) -> str:
    env = {"PYWIKIBOT_DIR": str(workdir), "PATH": "/usr/bin:/bin", "HOME": str(workdir)}
    completed = subprocess.run(
        args,
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        stdin=subprocess.DEVNULL,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output
    return output


BOT_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import pywikibot

    upload_file = sys.argv[1]
    site = pywikibot.Site()
    site.login()
    result = {"user": site.user(), "uploadsenabled": site.siteinfo["uploadsenabled"]}
    template = pywikibot.Page(site, "Template:Greet")
    template.text = "Hello {{{1|world}}}!"
    template.save(summary="template")
    page = pywikibot.Page(site, "Bot page")
    page.text = "Say: {{Greet|bots}} ''first''\\n== Part ==\\nold words"
    page.save(summary="first")
    result["expanded"] = page.expand_text()
    result["parsed"] = page.get_parsed_page()
    page.text = "Say: {{Greet|bots}} ''second''\\n== Part ==\\nold words"
    page.save(summary="second")
    # pywikibot orders revisions by timestamp alone: two saves in one second come in either
    # order, so take them by id.
    revids = sorted(rev.revid for rev in page.revisions())
    result["diff"] = site.compare(revids[0], revids[-1])
    file_page = pywikibot.FilePage(site, "File:Bot upload.png")
    result["uploaded"] = site.upload(
        file_page, source_filename=upload_file, summary="by the bot", ignore_warnings=True
    )
    print("RESULT " + json.dumps(result))
    """
)


def test_pywikibot_detects_edits_replaces_uploads(
    fresh_wiki: tuple[str, str], tmp_path: Path
) -> None:
    base, bot_password = fresh_wiki
    workdir = tmp_path / "pwb"
    workdir.mkdir()
    python = sys.executable
    pwb = str(Path(python).parent / "pwb")
    output = _run(
        [python, "-m", "pywikibot.scripts.generate_family_file", f"{base}/wiki/Main_Page",
         "atrium", "n", "n"],
        workdir,
    )  # fmt: skip
    assert "MediaWiki version: 1.39.17" in output
    family = (workdir / "families" / "atrium_family.py").read_text()
    assert f"'{base.removeprefix('http://')}'" in family
    (workdir / "user-config.py").write_text(
        "family = 'atrium'\nmylang = 'en'\nusernames['atrium']['en'] = 'Robot'\n"
        "password_file = 'passwords.py'\nput_throttle = 0\nmax_retries = 0\n"
    )
    passwords = workdir / "passwords.py"
    passwords.write_text(f"('Robot', BotPassword('e2e', '{bot_password}'))\n")
    os.chmod(passwords, 0o600)
    image = workdir / "pixel.png"
    image.write_bytes(_png())
    (workdir / "bot.py").write_text(BOT_SCRIPT)

    output = _run([python, "bot.py", str(image)], workdir)
    lines = [line for line in output.splitlines() if line.startswith("RESULT ")]
    assert lines, output
    result = json.loads(lines[0].removeprefix("RESULT "))
    assert result["user"] == "Robot" and result["uploadsenabled"] is True
    assert result["expanded"] == "Say: Hello bots! ''first''\n== Part ==\nold words"
    assert "Say: Hello bots! <i>first</i>" in result["parsed"]
    assert '<ins class="diffchange diffchange-inline">second</ins>' in result["diff"]
    assert result["uploaded"] is True

    output = _run(
        [pwb, "replace", "-page:Bot page", "old words", "new words", "-always", "-summary:swap"],
        workdir,
    )
    assert "Page [[Bot page]] saved" in output
    output = _run(
        [pwb, "upload", "-keep", "-noverify", "-always", "-ignorewarn",
         "-filename:Script upload.png", "-summary:via pwb", str(image), "A test image"],
        workdir,
    )  # fmt: skip
    assert "Upload of Script upload.png successful." in output

    site = mwclient.Site(base.removeprefix("http://"), path="/w/", scheme="http")
    assert "new words" in site.pages["Bot page"].text()
    assert site.pages["File:Script upload.png"].exists
    assert site.pages["File:Bot upload.png"].exists


def test_mwclient_parse_and_expand(fresh_wiki: tuple[str, str]) -> None:
    base, _ = fresh_wiki
    site = mwclient.Site(base.removeprefix("http://"), path="/w/", scheme="http")
    site.login("Admin", "admin-pass-123")
    site.pages["Template:Greet"].edit("Hello {{{1|world}}}!", summary="template")
    site.pages["Reader"].edit("Say: {{Greet|mw}} ''x''\n== Part ==\ntext", summary="page")
    parsed = site.parse(text="Hi {{Greet|you}} ''z''", title="Sandbox")
    assert "Hi Hello you! <i>z</i>" in parsed["text"]["*"]
    parsed = site.parse(page="Reader", prop="sections|templates")
    assert parsed["sections"][0]["line"] == "Part"
    assert parsed["templates"][0]["*"] == "Template:Greet"
    assert site.expandtemplates("{{Greet|mw}} {{uc:a}}") == "Hello mw! A"
    assert site.pages["Reader"].text(expandtemplates=True).startswith("Say: Hello mw! ''x''")
    assert site.pages["Main Page"].exists
