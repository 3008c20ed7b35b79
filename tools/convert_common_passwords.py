"""Convert MediaWiki's common-password Bloom filter to Atrium's binary form, once.

    .venv/bin/python tools/convert_common_passwords.py [common-x64.json]

The input is the serialised filter of the `wikimedia/common-passwords` Composer package (v0.4.0
in MediaWiki 1.39's Debian package), by default
`/usr/share/mediawiki/vendor/wikimedia/common-passwords/src/CommonPasswords/common-x64.json`:
`{"bit_array": {"len": bits, "arr": base64 bytes}, "hashers": {"algo": "sha1", "count": k,
"max": bits}}`, as `pleonasm/bloom-filter` writes it. (The x64 file, as 64-bit PHP reads it;
the x86 one is a different filter.)

The output is `src/atrium/wiki/accounts/data/common_passwords.bin`, read by `atrium.wiki.accounts.common_passwords`:
the header of `common_passwords.HEADER` (magic, bit count, hash count) and then the bit array's
bytes unchanged. The script refuses a filter whose hash is not HMAC-SHA1 or whose hash range is
not the bit count, which is all Atrium implements.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from atrium.wiki.accounts.common_passwords import DATA_FILE, HEADER, MAGIC  # noqa: E402

DEFAULT_INPUT = Path(
    "/usr/share/mediawiki/vendor/wikimedia/common-passwords/src/CommonPasswords/common-x64.json"
)


def convert(source: Path) -> bytes:
    state = json.loads(source.read_text(encoding="utf-8"))
    bits = state["bit_array"]["len"]
    array = base64.b64decode(state["bit_array"]["arr"], validate=True)
    hashers = state["hashers"]
    if hashers["algo"] != "sha1" or hashers["max"] != bits:
        raise SystemExit(f"unsupported hashers: {hashers}")
    if len(array) != (bits + 7) // 8:
        raise SystemExit(f"{len(array)} bytes do not hold {bits} bits")
    return HEADER.pack(MAGIC, bits, hashers["count"]) + array


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_INPUT
    data = convert(source)
    DATA_FILE.write_bytes(data)
    print(f"{source} -> {DATA_FILE.relative_to(REPO)} ({len(data)} bytes)")


if __name__ == "__main__":
    main()
