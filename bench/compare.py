"""`python -m bench.compare BEFORE.md AFTER.md`: two `make bench` reports side by side, for a
change that must not cost speed (`--rev` of the commit before it, then `--rev` of the change,
in one session on a quiet machine).

A figure is worse when the after run's req/s is below the before run's by more than 10 % plus
both runs' spread (each run's (max − min) / median over its measured runs), so a difference
within the noise of either run is not called a loss. The section it prints is kept by partial
runs of `make bench` (`report.merge_previous`).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

HEADING = "## Before and after"
_CELL = re.compile(r"(?<!\\)\|")
_RUNS = re.compile(r"^(?P<label>.*): (?P<values>[\d,.]+(?: / [\d,.]+)*)$")


@dataclass(frozen=True)
class Figure:
    rps: float
    p50: str
    p99: str
    spread: float  # (max - min) / median of the run's req/s, 0 when one run


def _number(text: str) -> float:
    return float(text.replace(",", "").strip() or "nan")


def _spreads(lines: list[str]) -> dict[tuple[str, str], float]:
    spreads: dict[tuple[str, str], float] = {}
    scenario = ""
    for line in lines:
        if line.startswith("## ") and " / " in line:
            scenario = line[3:].split(":", 1)[0].strip()
        elif line.startswith("Runs (req/s): ") and scenario:
            for item in line.removeprefix("Runs (req/s): ").rstrip(".").split("; "):
                match = _RUNS.match(item.strip())
                if not match:
                    continue
                values = sorted(_number(v) for v in match["values"].split(" / "))
                median = values[len(values) // 2]
                if median > 0:
                    spreads[(scenario, match["label"].strip())] = (values[-1] - values[0]) / median
    return spreads


def read_report(path: Path) -> tuple[dict[tuple[str, str], Figure], str]:
    """The summary rows of a report, keyed by (scenario, load), and the source it measured."""
    lines = path.read_text().splitlines()
    spreads = _spreads(lines)
    source = next(
        (ln.split("|")[2].strip() for ln in lines if ln.startswith("| Atrium source")), "?"
    )
    figures: dict[tuple[str, str], Figure] = {}
    in_summary = False
    for line in lines:
        if line.startswith("## "):
            in_summary = line.strip() == "## Summary"
            continue
        cells = [c.strip() for c in _CELL.split(line)[1:-1]]
        if not in_summary or len(cells) < 5 or cells[0] in {"scenario", ""} or cells[0][0] == "-":
            continue
        key = (cells[0], cells[1].replace("\\|", "|"))
        try:
            rps = _number(cells[2])
        except ValueError:  # a row an older report split at a `|` of its label
            continue
        figures[key] = Figure(rps, cells[3], cells[4], spreads.get(key, 0.0))
    return figures, source


def compare(before: Path, after: Path, skip: set[str]) -> str:
    old, old_source = read_report(before)
    new, new_source = read_report(after)
    rows = [
        "| scenario | load | before req/s | after req/s | change | allowed | before p50 / p99 ms"
        " | after p50 / p99 ms | verdict |",
        "|---|---|--:|--:|--:|--:|--:|--:|---|",
    ]
    worse = 0
    for key, was in old.items():
        family = key[0].split(" / ")[0]
        now = new.get(key)
        if family in skip or now is None or not was.rps or was.rps != was.rps:
            continue
        change = now.rps / was.rps - 1
        allowed = 0.10 + was.spread + now.spread
        verdict = "**worse**" if change < -allowed else ("better" if change > allowed else "same")
        worse += verdict == "**worse**"
        rows.append(
            f"| {key[0]} | {key[1]} | {was.rps:,.0f} | {now.rps:,.0f} | {change:+.0%} "
            f"| −{allowed:.0%} | {was.p50} / {was.p99} | {now.p50} / {now.p99} | {verdict} |"
        )
    missing = sorted(f"{s} ({load})" for s, load in new.keys() - old.keys())
    text = [
        HEADING,
        "",
        f"Before: {old_source}. After: {new_source}. Both measured in one session, one after the "
        "other. A figure is **worse** when its req/s fell by more than 10 % plus both runs' "
        "spread ((max − min) / median of each run's measured runs).",
        "",
        *rows,
        "",
        f"{worse} figure(s) worse of {len(rows) - 2} compared."
        + (f" Not measured before (new): {', '.join(missing)}." if missing else ""),
        "",
    ]
    return "\n".join(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.compare", description=__doc__.splitlines()[0]
    )
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--skip", action="append", default=[], metavar="FAMILY",
                        help="a family whose before figures are expected to differ")  # fmt: skip
    parser.add_argument("--into", type=Path, help="replace or add the section in this report")
    args = parser.parse_args(argv)
    section = compare(args.before, args.after, set(args.skip))
    if args.into:
        text = args.into.read_text()
        head, _, rest = text.partition(HEADING)
        tail = rest[rest.find("\n## ") + 1 :] if "\n## " in rest else ""
        args.into.write_text(head.rstrip() + "\n\n" + section + ("\n" + tail if tail else ""))
    print(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
