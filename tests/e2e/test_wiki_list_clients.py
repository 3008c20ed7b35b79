"""The list modules driven by the real `mwclient` and `pywikibot` against `atrium serve`:
allpages, search, usercontributions, watchlist, recentchanges, logevents, allusers, categories,
allimages after an upload, blocks, random and the others each client iterates with its own
continuation handling."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import mwclient
import pytest

from tests.e2e.test_wiki_clients import _png, serving_wiki

pytestmark = pytest.mark.e2e


@pytest.fixture
def service_under_test() -> str:
    return "wiki"


@pytest.fixture
def wiki_server(
    data_dir: Path, database_url: str | None, sqlite_templates: Path
) -> Iterator[tuple[str, str]]:
    """A server per test: these tests check whole-wiki lists (every user, category, revision
    and recent change), which another test's pages would change."""
    with serving_wiki(data_dir, database_url, sqlite_templates) as served:
        yield served


def test_mwclient_list_generators(wiki_server: tuple[str, str], tmp_path: Path) -> None:
    base, _ = wiki_server
    site = mwclient.Site(base.removeprefix("http://"), path="/w/", scheme="http")
    site.login("Admin", "admin-pass-123")
    for i in range(5):
        site.pages[f"Fruit {i}"].edit(
            f"Fruit number {i} is a tasty apple. [[Category:Fruit]] [[Apple]]", summary=f"s{i}"
        )
    site.pages["Apple"].edit("An apple. [[Category:Fruit]]", summary="apple", minor=True)
    site.pages["Fruit 0"].delete(reason="gone")
    image = tmp_path / "Dot.png"
    image.write_bytes(_png(2, 3))
    with image.open("rb") as handle:
        site.upload(handle, "Dot.png", description="a dot", ignore=True)

    # Small chunks: every list below continues several times.
    # Each generator batch comes in page-id order, as MediaWiki's.
    listed = [p.name for p in site.allpages(api_chunk_size=2)]
    assert sorted(listed[:2]) == ["Apple", "Fruit 1"] and sorted(listed) == [
        "Apple", "Fruit 1", "Fruit 2", "Fruit 3", "Fruit 4",
    ]  # fmt: skip
    hits = list(site.search("tasty", what="text", api_chunk_size=2))
    assert sorted(h["title"] for h in hits) == ["Fruit 1", "Fruit 2", "Fruit 3", "Fruit 4"]
    contribs = list(site.usercontributions("Admin", api_chunk_size=2))
    assert [c["title"] for c in contribs][:2] == ["File:Dot.png", "Apple"]
    assert len(contribs) == 6  # Fruit 0's revision went with the page
    watched = {w["title"] for w in site.watchlist(api_chunk_size=2)}
    assert {"Apple", "Fruit 1", "File:Dot.png"} <= watched
    changes = list(site.recentchanges(api_chunk_size=2, prop="title|user|flags"))
    assert changes[0]["type"] == "log" and changes[0]["title"] == "File:Dot.png"
    assert {c["user"] for c in changes} == {"Admin"}
    logs = [(e["type"], e["action"]) for e in site.logevents(api_chunk_size=1)]
    # As MediaWiki 1.39: a new file's upload entry, then its description page's creation entry
    # (LocalFile::recordUpload3 logs the upload before saving the page), newest first.
    assert logs[:3] == [("create", "create"), ("upload", "upload"), ("delete", "delete")]
    users = [u["name"] for u in site.allusers(api_chunk_size=1, prop="groups|editcount")]
    assert users == ["Admin", "Robot"]
    members = [p.name for p in site.categories["Fruit"]]
    assert sorted(members) == ["Apple", "Fruit 1", "Fruit 2", "Fruit 3", "Fruit 4"]
    assert [c.name for c in site.allcategories()] == ["Category:Fruit"]
    files = list(site.allimages())
    assert [f.name for f in files] == ["File:Dot.png"]
    assert files[0].imageinfo["width"] == 2
    # generator=alllinks gives the linking pages (the targets only with `unique`)
    assert sorted(p.name for p in site.alllinks()) == ["Fruit 1", "Fruit 2", "Fruit 3", "Fruit 4"]
    assert len(list(site.random(namespace=0, api_chunk_size=10))) == 5
    site.api(
        "block", user="203.0.113.9", expiry="1 day", reason="e2e", token=site.get_token("csrf")
    )
    assert [b["user"] for b in site.blocks()] == ["203.0.113.9"]
    assert [u.get("missing") for u in site.users(["Admin", "Nobody"])] == [None, ""]


PYWIKIBOT_LISTS = textwrap.dedent(
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
    for i in range(4):
        page = pywikibot.Page(site, f"Bot list {i}")
        page.text = f"bot list page {i} about pears [[Category:Pears]] [[Bot list 0]]"
        page.save(summary=f"list {i}")
    r = {}
    changes = site.recentchanges(total=6)
    changes.set_query_increment(2)  # three requests, each continuing the last
    r["recentchanges"] = [c["title"] for c in changes]
    r["usercontribs"] = [c["title"] for c in site.usercontribs(user="Robot", total=10)]
    r["allusers"] = [u["name"] for u in site.allusers(total=5)]
    r["search"] = sorted(p.title() for p in site.search("pears", where="text", total=10, namespaces=[0]))
    r["category"] = sorted(
        p.title() for p in pywikibot.Category(site, "Category:Pears").articles()
    )
    r["allcategories"] = [c.title() for c in site.allcategories()]
    r["backlinks"] = sorted(p.title() for p in pywikibot.Page(site, "Bot list 0").backlinks())
    r["random"] = len(list(site.randompages(total=3, namespaces=[0])))
    try:  # the bot password's grants do not include viewing the watchlist
        r["watched"] = sorted(p.title() for p in site.watched_pages(total=10))
    except pywikibot.exceptions.APIError as exc:
        r["watched"] = exc.code
    from pywikibot.data.api import ListGenerator
    revisions = ListGenerator("allrevisions", site=site, arvprop="ids|user")
    revisions.set_query_increment(3)
    r["revisions"] = sorted(rev["user"] for g in revisions for rev in g["revisions"])
    print("RESULT " + json.dumps(r))
    """
)


def test_pywikibot_list_generators(wiki_server: tuple[str, str], tmp_path: Path) -> None:
    base, bot_password = wiki_server
    script = tmp_path / "lists.py"
    script.write_text(PYWIKIBOT_LISTS)
    workdir = tmp_path / "pwb"
    workdir.mkdir()
    completed = subprocess.run(
        [sys.executable, str(script), f"{base}/w/api.php", bot_password, str(workdir)],
        cwd=workdir,
        env={"PYWIKIBOT_DIR": str(workdir), "PATH": "/usr/bin:/bin", "HOME": str(workdir)},
        capture_output=True,
        text=True,
        timeout=240,
    )
    lines = [line for line in completed.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, f"pywikibot failed:\n{completed.stdout}\n{completed.stderr}"
    r = json.loads(lines[0].removeprefix("RESULT "))
    titles = [f"Bot list {i}" for i in range(4)]
    assert r["recentchanges"][:4] == titles[::-1]
    assert r["usercontribs"] == titles[::-1]
    assert r["allusers"] == ["Admin", "Robot"]
    assert r["search"] == titles
    assert r["category"] == titles
    assert r["allcategories"] == ["Category:Pears"]
    assert r["backlinks"] == titles[1:]  # its link to itself is no backlink, as in 1.39
    assert r["random"] == 3
    assert r["watched"] == "permissiondenied"
    assert r["revisions"] == ["Robot"] * 4
