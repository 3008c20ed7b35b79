"""`python -m bench` (`make bench`): the ceilings, every scenario family, then BENCHMARKS.md.

A scenario family is a module with `FAMILY` (its name), `CONNECTIONS` (the connection counts it
measures, so the ceilings are measured at the same ones) and `run(settings, console)` returning
`ScenarioResult`s; a `BenchError` it raises names what could not run (a scenario the measured
source does not have yet, say) and carries in `partial` what it did measure. Add a family by
writing its module under `bench/` and listing it in `FAMILIES`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import os
import shutil
import sys
import time
import traceback
from pathlib import Path
from types import ModuleType

from rich.console import Console
from rich.table import Table

from bench.ceiling import measure_ceilings
from bench.harness import (
    DATA_DIR,
    REPO,
    BenchError,
    ScenarioResult,
    Settings,
    choose_generator,
    use_source,
)
from bench.report import RunInfo, as_json, merge_previous, render

FAMILIES = (
    "bench.chat",
    "bench.chat_admin",
    "bench.chat_browser",
    "bench.chat_events",
    "bench.chat_messaging",
    "bench.chat_presence",
    "bench.chat_uploads",
    "bench.mail",
    "bench.markdown",
    "bench.wiki_foundation",
    "bench.wiki_lists",
    "bench.wiki_props",
    "bench.wiki_vs_mediawiki",
    "bench.wiki_parse_vs_mediawiki",
    "bench.wiki_web_vs_mediawiki",
    "bench.worst_inputs",
    "bench.ops",
)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--generator",
        choices=("auto", "wrk", "python"),
        default="auto",
        help="load generator (auto: wrk when installed, else the pure-asyncio fallback)",
    )
    parser.add_argument("--runs", type=int, default=3, help="measured runs per load (median)")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per run")
    parser.add_argument("--warmup", type=float, default=2.0, help="warm-up seconds per load")
    parser.add_argument(
        "--only", action="append", default=[], metavar="FAMILY", help="run only this family"
    )
    parser.add_argument(
        "--rev",
        default=None,
        help="serve Atrium from this git revision instead of the working tree",
    )
    parser.add_argument(
        "--output", default=str(REPO / "BENCHMARKS.md"), help="report file (BENCHMARKS.md)"
    )
    return parser.parse_args(argv)


def load_families(only: list[str]) -> list[ModuleType]:
    modules = [importlib.import_module(name) for name in FAMILIES]
    if only:
        modules = [m for m in modules if m.FAMILY in only]
        if not modules:
            raise SystemExit(
                f"no family among {only}; known: {[m.split('.')[-1] for m in FAMILIES]}"
            )
    return modules


def print_summary(console: Console, results: list[ScenarioResult]) -> None:
    table = Table(title="Summary")
    for column in (
        "scenario",
        "load",
        "req/s",
        "p50 ms",
        "p99 ms",
        "errors",
        "other load",
        "result",
    ):
        table.add_column(column, justify="left" if column in {"scenario", "load"} else "right")
    for result in results:
        for row in result.rows:
            m = row.measurement
            table.add_row(
                result.family if result.key == result.family else f"{result.family}/{result.key}",
                m.label,
                f"{m.rps:,.0f}",
                f"{m.p50_ms:.2f}",
                f"{m.p99_ms:.2f}",
                str(m.errors),
                f"{m.other_load:.2f}",
                row.verdict,
            )
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    # The wiki families read anonymously, as they do on the public MediaWiki they compare with.
    os.environ.setdefault("ATRIUM_WIKI_AUDIENCE", "edit")
    console = Console(soft_wrap=True, width=max(110, shutil.get_terminal_size().columns))
    source = use_source(args.rev)
    started = dt.datetime.now(dt.UTC)
    clock = time.monotonic()
    settings = Settings(
        generator=choose_generator(args.generator, console),
        runs=args.runs,
        duration=args.duration,
        warmup=args.warmup,
    )
    console.print(f"Atrium source: {source}")
    console.print(f"Load generator: {settings.generator.name} — {settings.generator.description}")
    families = load_families(args.only)
    connections = {c for family in families for c in family.CONNECTIONS}
    ceilings, ceiling_result = measure_ceilings(settings, console, connections)
    results: list[ScenarioResult] = []
    failures: list[str] = []
    for family in families:
        try:
            results.extend(family.run(settings, console))
        except BenchError as exc:
            console.print(f"[red]{family.FAMILY}: {exc}[/red]")
            results.extend(exc.partial)
            failures.append(f"{family.FAMILY}: {str(exc).splitlines()[0]}")
        except Exception as exc:
            console.print(traceback.format_exc())
            failures.append(f"{family.FAMILY}: {exc!r}")
    info = RunInfo(started, time.monotonic() - clock, settings, failures, source)
    path = Path(args.output)
    text = render(info, ceiling_result, ceilings, results)
    if args.only and path.exists():
        # A partial run keeps the other families' sections of the report it replaces.
        order = [importlib.import_module(name).FAMILY for name in FAMILIES]
        text = merge_previous(text, path.read_text(), {r.family for r in results}, order)
    path.write_text(text)
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    (DATA_DIR / "last-run.json").write_text(as_json(info, results))
    print_summary(console, [ceiling_result, *results])
    console.print(f"Wrote {path} in {info.seconds / 60:.1f} min.")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
