"""Record what MediaWiki 1.39's feeds say of an edit, as test data: the recent-changes item of a
new page (the start of its text) and of edits (the rendered diff table, two adjacent edits by one
person as one item), and the contributions items (the revision's text).

    .venv/bin/python tools/capture_feed_diffs.py

Against the reference wiki (`../shared/reference/mediawiki/mediawiki-ref.sh start`): deletes and
recreates `Feed diff page` in three edits as Admin, then asks `feedrecentchanges` (RSS and Atom)
and `feedcontributions` and writes the items about that page to
`tests/wiki/data/mw139_feeds.json` under `diff-items`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from xml.etree import ElementTree

from mwref_session import API, admin_client, delete, edit

OUT = Path(__file__).resolve().parents[1] / "tests" / "wiki" / "data" / "mw139_feeds.json"
PAGE = "Feed diff page"
# (text, summary) of each edit, oldest first; tests/wiki/test_feeds.py makes the same ones.
EDITS = [
    ("First line.\nSecond line.\n\n<b>Bold</b> & 'quoted' \"twice\"", "Start"),
    ("First line.\nSecond line, changed.\n\n<b>Bold</b> & 'quoted' \"twice\"", "middle"),
    (
        "First line.\nSecond line, changed twice.\nNew third line.\n\n<b>Bold</b> & 'quoted' "
        '"twice"',
        "/* Intro */ see [[No such feed page]] & <b>",
    ),
]
REQUESTS = {
    "rc-rss": "action=feedrecentchanges&feedformat=rss&limit=3",
    "rc-atom": "action=feedrecentchanges&feedformat=atom&limit=3",
    "contribs-rss": "action=feedcontributions&user=Admin&feedformat=rss",
}


def _items(body: str) -> list[dict[str, str]]:
    """The feed's items about PAGE: title, link and description (RSS) or summary (Atom)."""
    root = ElementTree.fromstring(body.encode())
    atom = "{http://www.w3.org/2005/Atom}"
    found = []
    for item in root.iter("item"):
        found.append({k: item.findtext(k) or "" for k in ("title", "link", "description")})
    for entry in root.iter(f"{atom}entry"):
        link = entry.find(f"{atom}link")
        found.append({
            "title": entry.findtext(f"{atom}title") or "",
            "link": "" if link is None else link.get("href", ""),
            "description": entry.findtext(f"{atom}summary") or "",
        })  # fmt: skip
    return [each for each in found if each["title"] == PAGE]


def main() -> None:
    client = admin_client()
    delete(client, PAGE)
    for text, summary in EDITS:
        # A second apart: MediaWiki orders recent changes of one second unpredictably.
        time.sleep(1.1)
        edit(client, PAGE, text, summary)
    recorded = json.loads(OUT.read_text())
    cases = {}
    for name, request in REQUESTS.items():
        body = client.get(f"{API}?{request}").text
        cases[name] = {"request": request, "items": _items(body)}
    recorded["diff-items"] = {
        "_about": (
            "Recorded by tools/capture_feed_diffs.py from MediaWiki 1.39: the items about "
            f"'{PAGE}' after its three edits (EDITS there), as Admin."
        ),
        "edits": EDITS,
        **cases,
    }
    OUT.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
