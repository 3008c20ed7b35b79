"""Issue 8's list queries side by side: Atrium against the reference MediaWiki 1.39 on the same data.

The five queries of `bench.wiki_lists` (the same request paths), on the same 100,000-page,
1,000,000-revision wiki: Atrium serves its imported database (a fresh copy of the cache), MediaWiki
serves the same rows loaded into its own SQLite tables (`bench.mediawiki_ref`). Before anything
is timed, each query is asked of both and the answers must hold the same rows in the same order
(titles; revision ids for allrevisions; the total number of hits for search).

Then, in one run and one after the other on the same pinned core (server on core 0, load generator
on core 1), each query is measured on each server: the median latency at one connection and the
request rate at 16. Targets: Atrium's median at most a third of MediaWiki's, its request
rate at least five times MediaWiki's; they are attached to Atrium's rows as absolute limits derived
from MediaWiki's figures of the same run.

Needs MediaWiki 1.39 and PHP (installed by `mediawiki-ref.sh` through apt when run as root); when
they cannot be had, the family prints why and is skipped. Run it alone with
`python -m bench --only wiki_vs_mediawiki`; the first run builds and caches the data (see
`bench.mediawiki_ref`).
"""

from __future__ import annotations

import shutil

from rich.console import Console

from bench import mediawiki_ref
from bench.harness import (
    BenchError,
    HttpRequest,
    Measurement,
    Row,
    ScenarioResult,
    Server,
    Settings,
    Target,
    measure,
    running,
)
from bench.wiki_foundation import atrium_server, dump_path
from bench.wiki_lists import REVISIONS_PER_PAGE, Query, checked, queries
from bench.wiki_props import imported_cache, imported_wiki

FAMILY = "wiki_vs_mediawiki"
LOW, HIGH = 1, 16
CONNECTIONS = (LOW, HIGH)
LATENCY_RATIO = 3.0  # Atrium's median at most a third of MediaWiki's
THROUGHPUT_RATIO = 5.0  # Atrium's request rate at least five times MediaWiki's


def _measure(
    settings: Settings,
    console: Console,
    server: Server,
    name: str,
    query: Query,
    closes_connections: bool = False,
) -> tuple[Measurement, Measurement]:
    requests = [HttpRequest("GET", query.path)]
    low, high = (
        measure(settings, console, server, f"{name}, {n} connection{'s' * (n > 1)}", n, requests,
                query.marker, closes_connections)
        for n in (LOW, HIGH)
    )  # fmt: skip
    return low, high


def _same_rows(cases: list[Query], atrium: dict[str, str], reference: dict[str, str]) -> None:
    """Each query's rows must be the same on both servers; raises BenchError naming the first
    difference otherwise."""
    for query in cases:
        ours, theirs = query.rows(atrium[query.key]), query.rows(reference[query.key])
        if ours != theirs:
            at = next(
                (i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b),
                min(len(ours), len(theirs)),
            )
            raise BenchError(
                f"{query.key}: Atrium and MediaWiki answer different rows ({len(ours)} and "
                f"{len(theirs)} rows; first difference at row {at}: "
                f"{ours[at] if at < len(ours) else '(none)'} / "
                f"{theirs[at] if at < len(theirs) else '(none)'})"
            )


def _result(
    query: Query,
    atrium: tuple[Measurement, Measurement],
    reference: tuple[Measurement, Measurement],
    rows: int,
    served_by: str,
    reference_by: str,
) -> ScenarioResult:
    (a_low, a_high), (m_low, m_high) = atrium, reference
    latency = m_low.p50_ms / a_low.p50_ms if a_low.p50_ms else 0.0
    throughput = a_high.rps / m_high.rps if m_high.rps else 0.0
    return ScenarioResult(
        family=FAMILY,
        key=query.key,
        title=f"{query.title}: Atrium and MediaWiki 1.39",
        description=(
            f"{query.description} `GET {query.path}` ({rows} rows, the same on both servers) "
            f"against Atrium ({served_by}) and then the reference ({reference_by}). Atrium's "
            "targets are derived from MediaWiki's figures of this run: a median at most "
            f"1/{LATENCY_RATIO:g} of its median, a rate at least {THROUGHPUT_RATIO:g} times its "
            "rate."
        ),
        rows=[
            Row(a_low, (Target("p50_ms", m_low.p50_ms / LATENCY_RATIO),)),
            Row(a_high, (Target("rps", m_high.rps * THROUGHPUT_RATIO),)),
            Row(m_low, ()),
            Row(m_high, ()),
        ],
        notes=[
            f"Median latency at 1 connection: Atrium {a_low.p50_ms:.2f} ms, MediaWiki "
            f"{m_low.p50_ms:.2f} ms: Atrium takes 1/{latency:.1f} of MediaWiki's time "
            f"(target ≥ {LATENCY_RATIO:g}×).",
            f"Request rate at 16 connections: Atrium {a_high.rps:,.0f} req/s, MediaWiki "
            f"{m_high.rps:,.0f} req/s: {throughput:.1f}× (target ≥ {THROUGHPUT_RATIO:g}×).",
        ],
    )


def run(settings: Settings, console: Console) -> list[ScenarioResult]:
    reason = mediawiki_ref.unavailable_reason()
    if reason is not None:
        console.print(f"[yellow]{FAMILY} skipped: {reason}[/yellow]")
        return []
    cache = imported_cache(console, REVISIONS_PER_PAGE)
    reference = mediawiki_ref.reference_wiki(console, cache, dump_path(REVISIONS_PER_PAGE))
    data_dir = imported_wiki(console, REVISIONS_PER_PAGE)
    try:
        server, served_by = atrium_server(data_dir)
        # Both servers are up (and idle but for the one measured); each query is measured on
        # Atrium and then on MediaWiki, so a change of load on the machine touches both.
        with running(server), running(reference.server()) as mw:
            cases = queries(server.base_url)
            ours = {q.key: checked(server.base_url, q).text for q in cases}
            theirs = {q.key: checked(mw.base_url, q).text for q in cases}
            _same_rows(cases, ours, theirs)
            console.print("Atrium and MediaWiki answer every query with the same rows.")
            results = []
            for query in cases:
                console.rule(f"{FAMILY} / {query.key}")
                atrium = _measure(settings, console, server, "Atrium", query)
                # php -S closes the connection after every response (no keep-alive).
                reference_figures = _measure(settings, console, mw, "MediaWiki", query, True)
                rows = len(query.rows(ours[query.key])) - (query.member == "search")
                described = reference.describe()
                results.append(
                    _result(query, atrium, reference_figures, rows, served_by, described)
                )
            return results
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
