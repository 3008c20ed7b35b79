"""Carry MediaWiki 1.39 core's English interface messages into `atrium/wiki/messages/data/core_messages_en.json`.

    python tools/extract_core_messages.py [/usr/share/mediawiki]

Reads `languages/i18n/en.json` of the reference install (`../shared/reference/mediawiki/`):
every message key and its English text, without the `@metadata` block. `meta=allmessages`
answers from these (clients such as pywikibot ask for `comma-separator`, `and`, ...), with the
wiki's own message store and `MediaWiki:` pages on top.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "src" / "atrium" / "wiki" / "messages" / "data" / "core_messages_en.json"


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/mediawiki")
    messages = json.loads((root / "languages" / "i18n" / "en.json").read_text())
    messages.pop("@metadata", None)
    OUT.write_text(json.dumps(dict(sorted(messages.items())), ensure_ascii=False, indent=0) + "\n")
    print(f"{len(messages)} messages -> {OUT}")


if __name__ == "__main__":
    main()
