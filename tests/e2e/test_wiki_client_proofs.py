"""pywikibot and mwclient against one `atrium serve` (chat and wiki, as deployed) for the
module: `generate_family_file` given the bare host, chunked uploads, `mergehistory` and the
protection filter of `allpages`. The 25 MB upload in 5 MB chunks runs under `make fuzz`; the
suite sends a smaller file in the same number of chunks."""

from __future__ import annotations

import hashlib
import io
import json
import os
import struct
import subprocess
import sys
import textwrap
import zlib
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import httpx
import mwclient
import pytest

from tests.e2e.seed import create_wiki_users, prepare_data_dir
from tests.e2e.server import atrium_env, running_server

pytestmark = pytest.mark.e2e

READY = "/w/api.php?action=query&meta=siteinfo&format=json"
ADMIN = ("Admin", "admin-pass-123")


@pytest.fixture(scope="module")
def wiki_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data_dir = tmp_path_factory.mktemp("client-proofs") / "atrium-data"
    data_dir.mkdir()
    settings = prepare_data_dir(data_dir, None, None)
    create_wiki_users(settings, [(*ADMIN, ["sysop", "bureaucrat"])])
    with running_server(atrium_env(data_dir, None), READY) as server:
        yield server.url.removeprefix("http://")


def _png_of_size(size: int) -> bytes:
    """A valid PNG of exactly `size` bytes: the pixels, then a text chunk filling the rest."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
    pixels = chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00\x00\xff\x00" * 2))
    head, tail = b"\x89PNG\r\n\x1a\n" + header + pixels, chunk(b"IEND", b"")
    filler = size - len(head) - len(tail) - 12
    text = b"Comment\x00" + bytes(i % 26 + 97 for i in range(filler - 8))
    data = head + chunk(b"tEXt", text) + tail
    assert len(data) == size
    return data


def _run(args: list[str], workdir: Path) -> str:
    env = {"PYWIKIBOT_DIR": str(workdir), "PATH": "/usr/bin:/bin", "HOME": str(workdir)}
    completed = subprocess.run(
        args, cwd=workdir, env=env, capture_output=True, text=True, timeout=300,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output
    return output


@pytest.fixture(scope="module")
def pywikibot_dir(wiki_host: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A pywikibot directory whose family `generate_family_file` made from the bare host."""
    workdir = tmp_path_factory.mktemp("pwb")
    output = _run(
        [sys.executable, "-m", "pywikibot.scripts.generate_family_file", f"http://{wiki_host}/",
         "atrium", "n", "n"],
        workdir,
    )  # fmt: skip
    assert "MediaWiki version: 1.39.17" in output, output
    (workdir / "user-config.py").write_text(
        "family = 'atrium'\nmylang = 'en'\nusernames['atrium']['en'] = 'Admin'\n"
        "password_file = 'passwords.py'\nput_throttle = 0\nmax_retries = 0\n"
    )
    passwords = workdir / "passwords.py"
    passwords.write_text(f"{ADMIN!r}\n")
    os.chmod(passwords, 0o600)
    return workdir


def test_generate_family_file_on_bare_host(pywikibot_dir: Path, wiki_host: str) -> None:
    family = (pywikibot_dir / "families" / "atrium_family.py").read_text()
    assert f"'{wiki_host}'" in family and "'/w'" in family


PYWIKIBOT_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import pywikibot

    path, chunk_size, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    site = pywikibot.Site()
    site.login()
    result = {}
    file_page = pywikibot.FilePage(site, "File:" + name)
    result["uploaded"] = site.upload(
        file_page, source_filename=path, comment="in chunks", chunk_size=chunk_size,
        ignore_warnings=True,
    )
    file_page = pywikibot.FilePage(site, "File:" + name)
    result["size"] = file_page.latest_file_info.size
    result["sha1"] = file_page.latest_file_info.sha1
    if name.startswith("Small"):
        source = pywikibot.Page(site, "Old history")
        source.text = "first"
        source.save(summary="old")
        dest = pywikibot.Page(site, "New home")
        dest.text = "later"
        dest.save(summary="new")
        site.merge_history(source, dest, reason="joined")
        result["merged"] = [r.comment for r in pywikibot.Page(site, "New home").revisions()]
        result["redirect"] = pywikibot.Page(site, "Old history").isRedirectPage()
        site.protect(dest, protections={"edit": "sysop", "move": "sysop"}, reason="calm")
        result["protected"] = [p.title() for p in site.allpages(protect_type="edit",
                                                                 protect_level="sysop")]
    print("RESULT " + json.dumps(result))
    """
)


def _pywikibot_upload(workdir: Path, size: int, chunk: int, name: str) -> dict[str, object]:
    data = _png_of_size(size)
    (workdir / name).write_bytes(data)
    (workdir / "bot.py").write_text(PYWIKIBOT_SCRIPT)
    output = _run([sys.executable, "bot.py", str(workdir / name), str(chunk), name], workdir)
    lines = [line for line in output.splitlines() if line.startswith("RESULT ")]
    assert lines, output
    result: dict[str, object] = json.loads(lines[0].removeprefix("RESULT "))
    assert result["uploaded"] is True and result["size"] == size, output
    assert result["sha1"] == hashlib.sha1(data).hexdigest()
    return result


def test_pywikibot_chunks_merge_and_protection_filter(pywikibot_dir: Path) -> None:
    result = _pywikibot_upload(pywikibot_dir, 250_000, 50_000, "Small chunked.png")
    assert "old" in result["merged"] and "new" in result["merged"]  # type: ignore[operator]
    assert result["redirect"] is True
    assert result["protected"] == ["New home"]


def _mwclient_site(host: str) -> mwclient.Site:
    site = mwclient.Site(host, path="/w/", scheme="http")
    site.login(*ADMIN)
    return site


def _mwclient_upload(host: str, size: int, chunk: int, name: str) -> None:
    site = _mwclient_site(host)
    site.chunk_size = chunk
    data = _png_of_size(size)
    answer = site.upload(io.BytesIO(data), name, "in chunks", ignore=True)
    assert answer["upload"]["result"] == "Success", answer
    info = site.images[name].imageinfo
    assert info["size"] == size


def test_mwclient_chunks_merge_and_protection_filter(wiki_host: str) -> None:
    _mwclient_upload(wiki_host, 250_000, 50_000, "Small mwclient.png")
    site = _mwclient_site(wiki_host)
    site.pages["Early"].edit("early text", summary="early")
    site.pages["Late"].edit("late text", summary="late")
    token = site.get_token("csrf")
    merged = site.post("mergehistory", **{"from": "Early", "to": "Late", "token": token})
    assert merged["mergehistory"]["to"] == "Late"
    assert [r["comment"] for r in site.pages["Late"].revisions()] == ["late", "early"]
    site.post("protect", title="Late", protections="move=sysop", reason="calm", token=token)
    moved = [p.name for p in site.allpages(prtype="move", prlevel="sysop")]
    assert "Late" in moved and "Early" not in moved


@pytest.mark.fuzz
@pytest.mark.skipif(
    "ATRIUM_FUZZ_REQUESTS" not in os.environ, reason="the long run of `make fuzz` only"
)
def test_25_mb_in_5_mb_chunks(wiki_host: str, pywikibot_dir: Path) -> None:
    """The long variant: both clients send 25 MB in 5 MB chunks."""
    _pywikibot_upload(pywikibot_dir, 25 * 1024 * 1024, 5 * 1024 * 1024, "Large pywikibot.png")
    _mwclient_upload(wiki_host, 25 * 1024 * 1024, 5 * 1024 * 1024, "Large mwclient.png")


def test_xml_format_client(wiki_host: str) -> None:
    """A client that speaks the API in XML alone, as older bot frameworks did: it signs in,
    edits and walks a list through its continuation, reading every answer with an XML parser."""
    api = f"http://{wiki_host}/w/api.php"

    def read(response: httpx.Response) -> ElementTree.Element:
        assert response.headers["content-type"] == "text/xml; charset=utf-8"
        root = ElementTree.fromstring(response.content)
        assert root.find("error") is None, response.text
        return root

    with httpx.Client() as client:
        found = read(client.get(api, params={"action": "query", "meta": "tokens",
                                             "type": "login", "format": "xml"}))  # fmt: skip
        token = found.find("query/tokens").get("logintoken")  # type: ignore[union-attr]
        login = read(client.post(api, data={"action": "login", "lgname": ADMIN[0],
                                            "lgpassword": ADMIN[1], "lgtoken": token,
                                            "format": "xml"}))  # fmt: skip
        assert login.find("login").get("result") == "Success"  # type: ignore[union-attr]
        found = read(client.get(api, params={"action": "query", "meta": "tokens", "format": "xml"}))
        csrf = found.find("query/tokens").get("csrftoken")  # type: ignore[union-attr]
        for i in range(3):
            edit = read(client.post(api, data={"action": "edit", "title": f"Xml page {i}",
                                               "text": "<b>&amp; kept</b>", "token": csrf,
                                               "format": "xml"}))  # fmt: skip
            assert edit.find("edit").get("result") == "Success"  # type: ignore[union-attr]
        titles: list[str] = []
        cont: dict[str, str] = {}
        while True:
            page = read(client.get(api, params={"action": "query", "list": "allpages",
                                                "apprefix": "Xml page", "aplimit": "2",
                                                "format": "xml", **cont}))  # fmt: skip
            titles += [p.get("title", "") for p in page.iterfind("query/allpages/p")]
            following = page.find("continue")
            if following is None:
                break
            cont = dict(following.attrib)
        assert titles == ["Xml page 0", "Xml page 1", "Xml page 2"]
        content = read(client.get(api, params={"action": "query", "prop": "revisions",
                                               "titles": "Xml page 0", "rvprop": "content",
                                               "rvslots": "main", "format": "xml"}))  # fmt: skip
        slot = content.find("query/pages/page/revisions/rev/slots/slot")
        assert slot is not None and slot.get("role") == "main"
        assert slot.text == "<b>&amp; kept</b>"
