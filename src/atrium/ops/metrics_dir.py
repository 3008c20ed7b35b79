"""The folder where the workers of one `atrium serve` keep their Prometheus figures.

With more than one worker, each is a process of its own and a scrape reaches one of them at
random; prometheus-client's multiprocess mode has every worker write its counters, histograms and
gauges to files in one folder, and the worker that answers `/metrics` sums them all. The library
picks that mode when it is first imported, from `PROMETHEUS_MULTIPROC_DIR`, so the supervisor sets
it before any worker starts. Each run gets a new private folder (figures of an earlier run, or of
another server, must not be added in), removed when the server stops.

Kept free of heavy imports: the supervisor loads it before granian.
"""

from __future__ import annotations

import os
import shutil
import tempfile

ENV = "PROMETHEUS_MULTIPROC_DIR"


def prepare(workers: int) -> str | None:
    """Set up the environment the workers inherit: a fresh folder for more than one worker, none
    (one process's own registry) for one. An inherited setting is replaced either way: a folder
    left from another run would add its figures to this one's."""
    os.environ.pop(ENV, None)
    os.environ.pop(ENV.lower(), None)  # the library's older spelling, which it still reads
    if workers < 2:
        return None
    path = tempfile.mkdtemp(prefix="atrium-metrics-")  # empty, mode 0700
    os.environ[ENV] = path
    return path


def remove(path: str | None) -> None:
    if path is not None:
        shutil.rmtree(path, ignore_errors=True)
