"""The chat markdown renderer: renders per second, in process, for three messages.

- `typical`: a 300-character message with a mention, a stream link, a URL, a linkifier match,
  emphasis, a code span and an emoji (target >= 4,000 renders/s);
- `code`: the same with a short highlighted Python block (target >= 1,500 renders/s);
- `long`: a 10,000-character message of such paragraphs and lists (no target).

No server and no HTTP: `render_markdown` is called in this process, one thread, against a realm
of 501 users, a stream and a linkifier. A render that falls back to escaped text counts as an
error. In the table "req/s" reads renders/s and p50/p99 are per-render latencies; the figures
are the medians of the runs, each after waiting for the machine to be quiet.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence

from rich.console import Console

from atrium.chat.markdown import (
    LinkableStream,
    Linkifier,
    MentionableUser,
    RenderContext,
    render_markdown,
)
from bench.harness import (
    CpuMeter,
    Measurement,
    Row,
    RunResult,
    ScenarioResult,
    Settings,
    Target,
    wait_for_quiet,
)

FAMILY = "markdown"
# In-process: no connections, so no HTTP ceilings to measure for this family.
CONNECTIONS: tuple[int, ...] = ()

CTX = RenderContext(
    realm_url="https://chat.example.com",
    users=[MentionableUser(id=i, full_name=f"User {i}") for i in range(500)]
    + [MentionableUser(id=999, full_name="Ada Lovelace")],
    streams=[LinkableStream(id=1, name="Denmark")],
    linkifiers=[
        Linkifier(id=1, pattern=r"#(?P<id>[0-9]+)", url_template="https://t.example.com/{id}")
    ],
)
TYPICAL = (
    "Hi @**Ada Lovelace**, the deploy notes are in #**Denmark** and the dashboard is at "
    "https://grafana.example.com/d/abc123/overview?orgId=1 . Could you **double-check** the "
    "numbers for *yesterday* before we ship? I think issue #1234 explains the spike :smile: and "
    "`make bench` reproduces it locally. Thanks a lot, see you at the standup tomorrow morning!"
)
WITH_CODE = (
    TYPICAL[:200] + "\n```python\ndef f(x):\n    return [i * 2 for i in range(x) if i % 3]\n```\n"
)
LONG = ((TYPICAL + "\n\n* item one\n* item two\n\n") * 40)[:10_000]

DESCRIPTION = (
    "`render_markdown` called in the bench process, one thread, for a realm of 501 users, a "
    "stream and a linkifier; each run renders the message again and again for the run's "
    "duration. A render that falls back to escaped text counts as an error."
)
# key, title, message, target renders/s (None: reported only)
SCENARIOS: Sequence[tuple[str, str, str, float | None]] = (
    ("typical", "a typical message", TYPICAL, 4_000),
    ("code", "a message with a short highlighted code block", WITH_CODE, 1_500),
    ("long", "a 10,000-character message", LONG, None),
)


def timed_run(text: str, seconds: float) -> RunResult:
    """Render `text` again and again for about `seconds`; per-render latencies."""
    latencies: list[float] = []
    errors = 0
    clock = time.perf_counter
    deadline = clock() + seconds
    while True:
        start = clock()
        failed = render_markdown(text, CTX).failed
        end = clock()
        latencies.append(end - start)
        errors += failed
        if end >= deadline:
            break
    latencies.sort()
    return RunResult(
        requests=len(latencies),
        errors=errors,
        seconds=sum(latencies),
        p50_ms=statistics.median(latencies) * 1000,
        p99_ms=latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000,
    )


def measure_rendering(settings: Settings, label: str, text: str) -> Measurement:
    timed_run(text, min(settings.warmup, 1.0))
    runs: list[RunResult] = []
    other: list[float] = []
    for _ in range(settings.runs):
        wait_for_quiet()
        # No server group: "other" is everything but this process.
        with CpuMeter(-1) as meter:
            runs.append(timed_run(text, settings.duration))
        other.append(meter.other_cores)
    # connections=0: no HTTP ceiling applies to an in-process figure.
    return Measurement(label, 0, runs, other_cores=other)


def run(settings: Settings, console: Console) -> list[ScenarioResult]:
    results = []
    for key, title, text, target in SCENARIOS:
        console.print(f"[bold]{FAMILY}/{key}[/bold]: {title} ({len(text):,} characters)")
        m = measure_rendering(settings, f"{len(text):,} chars, 1 thread", text)
        console.print(
            f"  {m.rps:,.0f} renders/s, p50 {m.p50_ms:.3f} ms, p99 {m.p99_ms:.3f} ms "
            f"(runs: {' / '.join(f'{r.rps:,.0f}' for r in m.runs)})"
        )
        targets = (Target("rps", target),) if target is not None else ()
        results.append(
            ScenarioResult(
                family=FAMILY,
                key=key,
                title=f"rendering {title}",
                description=DESCRIPTION,
                rows=[Row(m, targets)],
                notes=[
                    "Renders per second of `render_markdown` in the bench process "
                    "(req/s = renders/s); no ratio to the HTTP ceilings applies.",
                    f"Other processes used up to {m.other_load:.2f} cores during the runs.",
                ],
            )
        )
    return results
