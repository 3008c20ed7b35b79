"""BENCHMARKS.md: the machine, the method, the ceilings, and a table per scenario with its targets.

Every throughput figure is also given as a ratio to the ceilings measured in the same run at the
same number of connections. A measurement with failed responses is marked as such whatever its
figures.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from bench.ceiling import Ceilings
from bench.harness import Measurement, Row, ScenarioResult, Settings, pinning_available

# Unrelated CPU use (in cores) above which a measurement is flagged as disturbed.
OTHER_LOAD_WARNING = 0.1


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "?"


@dataclass
class RunInfo:
    started: dt.datetime
    seconds: float
    settings: Settings
    failures: list[str]
    source: str


def machine_lines(info: RunInfo) -> list[tuple[str, str]]:
    s = info.settings
    pinning = (
        "server on core 0, load generator on core 1 (`taskset`)"
        if pinning_available()
        else "none (needs `taskset` and 2 cores): server and generator share the CPUs"
    )
    return [
        ("Date", info.started.strftime("%Y-%m-%d %H:%M UTC")),
        (
            "Machine",
            f"{os.cpu_count()} cores (nproc), {cpu_model()}, {platform.system()} {platform.release()}",
        ),
        (
            "Software",
            f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, "
            f"granian {_version('granian')}, Starlette {_version('starlette')}",
        ),
        ("Atrium source", info.source),
        ("Pinning", pinning),
        ("Load generator", f"**{s.generator.name}**: {s.generator.description}"),
        (
            "Method",
            f"each figure is the median of {s.runs} run{'s' if s.runs != 1 else ''} of "
            f"{s.duration:g} s after a "
            f"{s.warmup:g} s warm-up; p50/p99 are per-request latencies as the generator "
            'measures them; every response must be a 200 with `"result":"success"`',
        ),
        (
            "Other load",
            "CPU taken by unrelated processes during a measurement (machine busy time minus the "
            "server's, the generator's and the harness's; the largest over the runs, in cores). "
            f"Above {OTHER_LOAD_WARNING} (bold) the figure was disturbed by other work on the "
            "machine and should be rerun on a quiet one (each run first waits up to 10 s for "
            "the machine to be idle)",
        ),
        ("Duration of `make bench`", f"{info.seconds / 60:.1f} min"),
    ]


def _ms(value: float) -> str:
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


def _ratio(ceilings: Ceilings, endpoint: str, m: Measurement) -> str:
    ratio = ceilings.ratio(endpoint, m)
    ceiling = ceilings.get(endpoint, m.connections)
    if ratio is None or ceiling is None:
        return "—"
    return f"{ratio:.2f} (of {ceiling.rps:,.0f})"


def _scaled_row(row: Row, ceilings: Ceilings) -> Row | None:
    bare = ceilings.get("bare", row.measurement.connections)
    return row.scaled(bare.rps) if bare is not None and bare.rps else None


def _result(row: Row, ceilings: Ceilings) -> str:
    """The verdict on the issue's targets, and where they scale, on the targets at this run's
    bare ceiling (the issue's figures were set on a machine whose ceiling was higher or lower)."""
    verdict = f"**{row.verdict}**"
    scaled = _scaled_row(row, ceilings)
    if scaled is None:
        return verdict
    targets = ", ".join(t.describe() for t in scaled.targets)
    return f"{verdict}; at this run's bare ceiling ({targets}): **{scaled.verdict}**"


def _load(m: Measurement) -> str:
    text = f"{m.other_load:.2f}"
    return f"**{text}**" if m.other_load > OTHER_LOAD_WARNING else text


def _errors(m: Measurement) -> str:
    if not m.errors:
        return "0"
    sample = m.error_sample.replace("|", "\\|")[:80]
    return f"**{m.errors:,}** ({sample})" if sample else f"**{m.errors:,}**"


def scenario_table(result: ScenarioResult, ceilings: Ceilings) -> list[str]:
    lines = [
        "| load | req/s | p50 ms | p99 ms | errors | target | result | ratio to bare ceiling "
        "| ratio to 1-insert ceiling | other load |",
        "|---|--:|--:|--:|--:|---|---|--:|--:|--:|",
    ]
    for row in result.rows:
        m = row.measurement
        lines.append(
            f"| {_cell(m.label)} | {m.rps:,.0f} | {_ms(m.p50_ms)} | {_ms(m.p99_ms)} | {_errors(m)} "
            f"| {', '.join(t.describe() for t in row.targets) or '—'} | {_result(row, ceilings)} "
            f"| {_ratio(ceilings, 'bare', m)} | {_ratio(ceilings, 'insert', m)} "
            f"| {_load(m)} |"
        )
    runs = "; ".join(
        f"{row.measurement.label}: " + " / ".join(f"{r.rps:,.0f}" for r in row.measurement.runs)
        for row in result.rows
    )
    lines += ["", f"Runs (req/s): {runs}."]
    return lines


def ceiling_table(result: ScenarioResult) -> list[str]:
    lines = [
        "| endpoint, connections | req/s | p50 ms | p99 ms | errors | other load |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    for row in result.rows:
        m = row.measurement
        lines.append(
            f"| {_cell(m.label)} | {m.rps:,.0f} | {_ms(m.p50_ms)} | {_ms(m.p99_ms)} | {_errors(m)} "
            f"| {_load(m)} |"
        )
    return lines


def summary_table(results: Sequence[ScenarioResult], ceilings: Ceilings) -> list[str]:
    lines = [
        "| scenario | load | req/s | p50 ms | p99 ms | target | result |",
        "|---|---|--:|--:|--:|---|---|",
    ]
    for result in results:
        for row in result.rows:
            m = row.measurement
            lines.append(
                f"| {result.family} / {result.key} | {_cell(m.label)} | {m.rps:,.0f} | {_ms(m.p50_ms)} "
                f"| {_ms(m.p99_ms)} | {', '.join(t.describe() for t in row.targets)} "
                f"| {_result(row, ceilings)} |"
            )
    return lines


def render(
    info: RunInfo, ceiling: ScenarioResult, ceilings: Ceilings, results: Sequence[ScenarioResult]
) -> str:
    out = [
        "# Benchmarks",
        "",
        "Written by `make bench` (`python -m bench`, code under `bench/`); rerun it rather than "
        "editing this file. Targets are the project's; ratios divide a scenario's requests/s "
        "by the ceiling's at the same number of connections, measured in the same run. The "
        "64-connection targets were set on a machine whose bare ceiling was about 41,000 req/s; "
        "their result also gives the verdict on those targets scaled to this run's bare ceiling "
        "(throughput in proportion, p99 in inverse proportion), which is what the ratios say.",
        "",
        "| | |",
        "|---|---|",
        *(f"| {key} | {value} |" for key, value in machine_lines(info)),
        "",
    ]
    if info.failures:
        out += ["## Scenarios that could not run", ""]
        out += [f"- {failure}" for failure in info.failures] + [""]
    out += ["## Summary", "", *summary_table(results, ceilings), ""]
    out += ["## Ceilings", "", ceiling.description, "", *ceiling_table(ceiling), ""]
    for result in results:
        out += [f"## {result.family} / {result.key}: {result.title}", "", result.description, ""]
        out += scenario_table(result, ceilings)
        out += [""] + [f"- {note}" for note in result.notes] + ([""] if result.notes else [])
    return "\n".join(out).rstrip() + "\n"


def as_json(info: RunInfo, results: Sequence[ScenarioResult]) -> str:
    data = {
        "date": info.started.isoformat(),
        "generator": info.settings.generator.name,
        "failures": info.failures,
        "scenarios": [
            {
                "family": r.family,
                "key": r.key,
                "rows": [_row_json(row) for row in r.rows],
            }
            for r in results
        ],
    }
    return json.dumps(data, indent=1)


def _row_json(row: Row) -> dict[str, object]:
    m = row.measurement
    return {
        "label": m.label,
        "connections": m.connections,
        "rps": m.rps,
        "p50_ms": m.p50_ms,
        "p99_ms": m.p99_ms,
        "errors": m.errors,
        "verdict": row.verdict,
        "runs": [r.rps for r in m.runs],
    }


# --- Partial runs -------------------------------------------------------------------------------

_KEPT = "_Kept from the run of "


def _cell(text: str) -> str:
    """A label as a table cell: a `|` of its own (`{{Arg|…}}`) would split the row."""
    return text.replace("|", "\\|")


def _split(text: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """The lines before the first `## ` heading, and each `## ` section (heading, its lines)."""
    head: list[str] = []
    sections: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("## "):
            sections.append((line, []))
        elif sections:
            sections[-1][1].append(line)
        else:
            head.append(line)
    return head, sections


def _family_of(cell_or_heading: str) -> str:
    """`wiki_lists` of `## wiki_lists / allpages-500: …` or of `| wiki_lists / allpages-500 | …`."""
    return cell_or_heading.lstrip("#| ").split(" / ", 1)[0].strip()


def merge_previous(new: str, previous: str, ran: set[str], order: Sequence[str]) -> str:
    """`new` (a partial run's report) with the scenario sections, summary rows and failures of the
    families it did not measure kept from `previous`, each kept section marked with its date.

    The machine table, ceilings and method at the top are this run's; a kept section carries its
    own run's figures (its ratios are to that run's ceilings).
    """
    old_head, old_sections = _split(previous)
    old_date = next(
        (line.split("|")[2].strip() for line in old_head if line.startswith("| Date |")), "?"
    )
    kept = [
        (heading, lines)
        for heading, lines in old_sections
        if " / " in heading and _family_of(heading) not in ran
    ]
    # A before-and-after comparison (`bench.compare`) stays until a full run replaces it.
    compared = [(h, lines) for h, lines in old_sections if h == "## Before and after"]
    if not kept:
        return new if not compared else _append_sections(new, compared)
    old_summary = dict(old_sections).get("## Summary", [])
    kept_rows = [
        line
        for line in old_summary
        if line.startswith("| ") and " / " in line.split("|")[1]
        and _family_of(line.split("|")[1]) not in ran
    ]  # fmt: skip
    old_failures = dict(old_sections).get("## Scenarios that could not run", [])
    kept_failures = [
        line for line in old_failures if line.startswith("- ") and line[2:].split(":")[0] not in ran
    ]
    head, sections = _split(new)
    rank = {name: i for i, name in enumerate(order)}
    out_sections: list[tuple[str, list[str]]] = []
    scenario_sections: list[tuple[str, list[str]]] = []
    for heading, lines in sections:
        if heading == "## Summary":
            table = [line for line in lines if line.startswith("|")]
            rest = [line for line in lines if not line.startswith("|")]
            rows = sorted(
                table[2:] + kept_rows, key=lambda r: rank.get(_family_of(r.split("|")[1]), 99)
            )
            lines = ["", *table[:2], *rows, *rest[1:]]
        elif heading == "## Scenarios that could not run":
            lines = [*lines[:-1], *kept_failures, ""] if lines else lines
        if " / " in heading:
            scenario_sections.append((heading, lines))
        else:
            out_sections.append((heading, lines))
    if kept_failures and "## Scenarios that could not run" not in dict(sections):
        out_sections.insert(0, ("## Scenarios that could not run", ["", *kept_failures, ""]))
    for heading, lines in kept:
        if not any(line.startswith(_KEPT) for line in lines):
            lines = ["", f"{_KEPT}{old_date}; this partial run did not measure it._", *lines]
        scenario_sections.append((heading, lines))
    scenario_sections.sort(key=lambda s: rank.get(_family_of(s[0]), 99))  # stable: run order kept
    families = ", ".join(sorted({_family_of(h) for h, _ in kept}, key=lambda f: rank.get(f, 99)))
    head = [
        *head,  # ends with the blank line that closes the machine table
        f"Partial run (`--only {' '.join(sorted(ran))}`): the sections of {families} are kept "
        f"from the previous report ({old_date}) and marked so.",
        "",
    ]
    body = [
        line for heading, lines in [*out_sections, *scenario_sections] for line in (heading, *lines)
    ]
    return _append_sections("\n".join([*head, *body]), compared)


def _append_sections(text: str, sections: list[tuple[str, list[str]]]) -> str:
    lines = [line for heading, body in sections for line in ("", heading, *body)]
    return "\n".join([text.rstrip(), *lines]).rstrip() + "\n"
