"""The ceilings: what the framework and server can do at best on this machine, measured each run.

A bare Starlette JSON endpoint and the same endpoint doing one SQLite insert, served by granian
exactly as `atrium serve` serves Atrium, at the same connection counts as the scenarios. Scenario
figures are quoted as ratios to these.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from bench.apps import CEILING_DB_ENV
from bench.harness import (
    HttpRequest,
    Measurement,
    Row,
    ScenarioResult,
    Server,
    Settings,
    free_port,
    measure,
    running,
)

ENDPOINTS = {"bare": "/bare", "insert": "/insert"}


@dataclass
class Ceilings:
    """Ceiling measurements by (endpoint, connections)."""

    measurements: dict[tuple[str, int], Measurement] = field(default_factory=dict)

    def get(self, endpoint: str, connections: int) -> Measurement | None:
        return self.measurements.get((endpoint, connections))

    def ratio(self, endpoint: str, m: Measurement) -> float | None:
        ceiling = self.get(endpoint, m.connections)
        if ceiling is None or ceiling.rps == 0:
            return None
        return m.rps / ceiling.rps


def measure_ceilings(
    settings: Settings, console: Console, connection_counts: Iterable[int]
) -> tuple[Ceilings, ScenarioResult]:
    console.rule("Ceilings: bare Starlette endpoint, and with one SQLite insert")
    ceilings = Ceilings()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-ceiling-") as tmp:
        port = free_port()
        server = Server(
            "ceiling",
            [sys.executable, "-m", "bench.apps", "ceiling", "--port", str(port)],
            port,
            "/bare",
            env={CEILING_DB_ENV: str(Path(tmp) / "ceiling.sqlite3")},
        )
        with running(server):
            for connections in sorted(set(connection_counts)):
                for endpoint, path in ENDPOINTS.items():
                    label = f"{endpoint}, {connections} conn"
                    m = measure(
                        settings, console, server, label, connections, [HttpRequest("GET", path)]
                    )
                    ceilings.measurements[(endpoint, connections)] = m
                    rows.append(Row(m))
    result = ScenarioResult(
        family="ceiling",
        key="ceiling",
        title="Ceilings",
        description=(
            '`GET /bare`: a Starlette route returning `{"result":"success","msg":""}` '
            "with `JSONResponse`. `GET /insert`: the same after one `INSERT` through the stdlib "
            "`sqlite3` driver, inline in the event loop, WAL, `synchronous=NORMAL`, one commit "
            "per request. Served by granian with the arguments `atrium serve` uses "
            "(`bench/apps.py`)."
        ),
        rows=rows,
    )
    return ceilings, result
