"""Write CONFORMANCE.md from one api-testing run: the score against the tests that pass on
MediaWiki 1.39, a per-file table, and each failing test with its assertion and, when
`known-failures.tsv` (id TAB reason) explains it, why.

  report.py OUT_DIR PASSING_LIST > CONFORMANCE.md
"""

from __future__ import annotations

import collections
import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare


def main(out: str, listing: str) -> None:
    tests, _hooks = compare.load(out)
    wanted = [line.strip() for line in open(listing) if line.strip()]
    by_name = {compare.name(k): t for k, t in tests.items()}
    here = os.path.dirname(os.path.abspath(__file__))
    reasons: dict[str, str] = {}
    known = os.path.join(here, "known-failures.tsv")
    if os.path.exists(known):
        for line in open(known):
            if "\t" in line and not line.startswith("#"):
                name, why = line.rstrip("\n").split("\t", 1)
                reasons[name] = why
    passed = [n for n in wanted if compare.passed(by_name.get(n))]
    failing = [n for n in wanted if n not in passed]
    per_file: dict[str, collections.Counter[str]] = collections.OrderedDict()
    for n in wanted:
        c = per_file.setdefault(n.split(" › ")[0], collections.Counter())
        c["pass" if n in passed else "fail"] += 1
    version = open(os.path.join(out, "tests-version.txt")).read().strip()
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print("# Conformance: MediaWiki's own Action API tests\n")
    print(f"**{len(passed)} of {len(wanted)}** tests that pass on MediaWiki 1.39 pass on Atrium.\n")
    print(
        f"`make conformance` ({when}): `tests/api-testing/action` of {version} (fetched through "
        "apt), mocha and the `api-testing` npm library unchanged (no diagnostic switch), against "
        "a real `atrium serve` on a fresh data directory with a signed `Special:RunJobs`. "
        "`tools/conformance/mw139-passing.txt` lists the tests that pass on MediaWiki 1.39.17.\n"
    )
    print("| file | pass | fail |\n|---|---:|---:|")
    for f, c in per_file.items():
        print(f"| {f} | {c['pass']} | {c['fail']} |")
    print(f"| **total** | **{len(passed)}** | **{len(failing)}** |\n")
    if failing:
        print("## Failing here\n")
        for n in failing:
            t = by_name.get(n) or {}
            message = ((t.get("err") or {}).get("message") or "missing from the run").strip()
            message = " ".join(message.split())[:240].replace("|", "\\|")
            print(f"- `{n}`: {reasons.get(n, 'assertion: ' + message)}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
