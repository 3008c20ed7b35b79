"""The chat's web client in headless Chromium (Playwright, Debian's chromium), against a real
Atrium server on the 1,000,000-message organization (`bench.datasets.fetch_dataset`).

- `first_paint`: from navigation to the first 100 messages of a topic painted (target <= 300 ms);
- `switch`: from changing the narrow to another topic to its messages painted (<= 100 ms);
- `live`: from Enter in one browser to the message painted in another (median <= 100 ms);
- `inbox` and `recent`: from the hash change (`#inbox`, `#recent`) in a loaded client showing a
  topic to the frame showing the Inbox or Recent conversations view (<= 150 ms each); `recent`
  also opened before the list's prefetch, straight after a first paint (no target);
- the JavaScript and CSS a first load fetches, gzip-compressed (<= 200 KB; fonts and images,
  such as the emoji font a page fetches once it shows an emoji, are not counted), in the notes
  and verdict of `first_paint`.

Times are taken inside the page (`performance.now()`, whose origin is the navigation start); a
message counts as painted after the frame that shows it (`requestAnimationFrame`, then a task).
The browser and the server share the machine, as a person's would on a laptop. The server runs
on a copy of the data set, where the reader and one other subscriber get a password (the data set
has none) so they can sign in.
"""

from __future__ import annotations

import gzip
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import orjson
from rich.console import Console
from tests.e2e.browser_server import CHROMIUM_ARGS

from bench.chat import atrium_server
from bench.datasets import FetchDataset, Narrow, fetch_dataset
from bench.harness import (
    DATA_DIR,
    BenchError,
    CpuMeter,
    Measurement,
    Row,
    RunResult,
    ScenarioResult,
    Settings,
    Target,
    running,
    wait_for_quiet,
)

FAMILY = "chat_browser"
# No load generator: no HTTP ceilings to measure for this family.
CONNECTIONS: tuple[int, ...] = ()

PASSWORD = "bench-browser-pass"
FIRST = 100  # messages that make the first screen
SAMPLES = 8  # navigations or messages per run
ASSET_TARGET_KB = 200
TRIAGE_TARGET_MS = 150
# Recent conversations fetches its list 1.5 s after the first view painted: wait past that.
PREFETCH_WAIT = 2.5
# Time after the client is ready for the modules it imports lazily to load.
LAZY_LOAD_WAIT = 1.0

# Resolves with performance.now() once `count` messages are in the feed and a frame showed them.
PAINTED = """
window.__painted = (count) => new Promise((resolve, reject) => {
  setTimeout(() => {
    const feed = document.getElementById('feed');
    reject(new Error(`not painted in 60 s: ${location.hash} ` +
      `${feed?.querySelectorAll('article.message').length} messages, ` +
      `${feed?.querySelector('.feed-status')?.textContent ?? ''}`));
  }, 60000);
  const ready = () => {
    const feed = document.getElementById('feed');
    return feed && !feed.querySelector('.feed-status') &&
      feed.querySelectorAll('article.message').length >= count;
  };
  const done = () => requestAnimationFrame(() => setTimeout(() => resolve(performance.now())));
  if (ready()) return done();
  const watch = new MutationObserver(() => {
    if (ready()) { watch.disconnect(); done(); }
  });
  watch.observe(document, { childList: true, subtree: true });
});
"""

# Where a first paint's time went: the page and its modules loaded (DOMContentLoaded), and the
# two API calls before the feed can render.
PARTS = """
() => {
  const entries = performance.getEntriesByType('resource');
  const took = (path) => entries.find((e) => new URL(e.name).pathname === path)?.duration ?? null;
  const nav = performance.getEntriesByType('navigation')[0];
  return {scripts: nav ? nav.domContentLoadedEventEnd : null,
          register: took('/json/register'), messages: took('/json/messages')};
}
"""

# Switch to `hash` and resolve with the milliseconds until its messages are painted: the feed
# first shows "Loading…" for the new narrow, then the messages.
SWITCH = """
async ([hash, count]) => {
  const feed = document.getElementById('feed');
  const started = performance.now();
  let cleared = false;
  await new Promise((resolve, reject) => {
    setTimeout(() => reject(new Error(`${hash} not painted in 60 s`)), 60000);
    const check = () => {
      if (!cleared) cleared = Boolean(feed.querySelector('.feed-status'));
      return cleared && !feed.querySelector('.feed-status') &&
        feed.querySelectorAll('article.message').length >= count;
    };
    const watch = new MutationObserver(() => {
      if (check()) { watch.disconnect(); resolve(); }
    });
    watch.observe(feed, { childList: true, subtree: true });
    location.hash = hash;
  });
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
  return performance.now() - started;
}
"""

# Open the view at `hash` (#inbox, #recent) and resolve with the milliseconds until it shows
# `selector` in a painted frame.
OPEN_VIEW = """
async ([hash, selector]) => {
  const started = performance.now();
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${hash} not shown in 60 s`)), 60000);
    const shown = () => {
      const view = document.getElementById('triage');
      return Boolean(view && !view.hidden && view.querySelector(selector));
    };
    const watch = new MutationObserver(() => {
      if (shown()) { watch.disconnect(); clearTimeout(timer); resolve(); }
    });
    watch.observe(document.body, { childList: true, subtree: true, attributes: true });
    location.hash = hash;
  });
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
  return performance.now() - started;
}
"""

# In the receiving page: set window.__arrived to the wall-clock time (ms) the message with `text`
# is painted.
ARRIVAL = """
(text) => { window.__arrived = null; new Promise((resolve) => {
  const feed = document.getElementById('feed');
  const found = () => [...feed.querySelectorAll('article.message:not(.local-echo)')]
    .some((a) => a.textContent.includes(text));
  const done = () => requestAnimationFrame(() =>
    setTimeout(() => resolve(performance.timeOrigin + performance.now())));
  if (found()) return done();
  const watch = new MutationObserver(() => {
    if (found()) { watch.disconnect(); done(); }
  });
  watch.observe(feed, { childList: true, subtree: true });
}).then((t) => { window.__arrived = t; }); }
"""

# In the sending page: the wall-clock time of the Enter that sends.
SEND_CLOCK = """
() => window.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey) window.__sentAt = performance.timeOrigin + performance.now();
}, true)
"""


def chromium() -> str:
    # The desktop build first, as a person uses; the report names the binary it measured.
    path = (
        shutil.which("chromium")
        or shutil.which("chromium-browser")
        or shutil.which("chromium-headless-shell")
    )
    if path is None:
        raise BenchError("chromium is not installed (apt-get install -y chromium)")
    return path


def _people(data: FetchDataset, stream: str) -> tuple[str, str]:
    """The reader and another subscriber of `stream`, both given PASSWORD to sign in with."""
    from atrium.core.secrets import hash_password

    conn = sqlite3.connect(data.data_dir / "chat.sqlite3")
    try:
        other = conn.execute(
            "SELECT u.email FROM subscription s JOIN stream st ON st.id = s.stream_id "
            "JOIN user_profile u ON u.id = s.user_id "
            "WHERE st.name = ? AND s.active AND u.email != ? ORDER BY u.id LIMIT 1",
            (stream, data.reader.email),
        ).fetchone()
        if other is None:
            raise BenchError(f"no other subscriber of {stream}")
        digest = hash_password(PASSWORD)
        conn.executemany(
            "UPDATE user_profile SET password_hash = ? WHERE email = ?",
            [(digest, data.reader.email), (digest, other[0])],
        )
        conn.commit()
    finally:
        conn.close()
    return data.reader.email, str(other[0])


def _stream_ids(base_url: str, data: FetchDataset) -> dict[str, int]:
    response = httpx.get(
        base_url + "/api/v1/streams",
        auth=(data.reader.email, data.reader.api_key),
        timeout=60,
    )
    return {s["name"]: int(s["stream_id"]) for s in response.json()["streams"]}


def topic_hash(stream_ids: dict[str, int], narrow: Narrow) -> str:
    stream_id = stream_ids[narrow.stream]
    return f"#narrow/stream/{stream_id}-x/topic/{quote(narrow.topic, safe='')}"


@contextmanager
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=chromium(), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield launched
        finally:
            launched.close()


def signed_in(chrome: Any, base_url: str, email: str) -> Any:
    """A new context signed in as `email`, on the shell page; its first load is done."""
    context = chrome.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(PAINTED)
    page = context.new_page()
    page.goto(base_url + "/")
    page.fill("#login-email", email)
    page.fill("#login-password", PASSWORD)
    page.click("#login-submit")
    page.wait_for_selector("body[data-ready=true]", timeout=60_000)
    return page


def median(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} ms" if values else "not measured"


def _run(latencies: list[float]) -> RunResult:
    ordered = sorted(latencies)
    return RunResult(
        requests=len(ordered),
        errors=0,
        seconds=sum(ordered) / 1000,
        p50_ms=statistics.median(ordered),
        p99_ms=ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
    )


def measure_runs(settings: Settings, pgid: int, label: str, sample: Any) -> Measurement:
    """`settings.runs` runs of SAMPLES samples each (after one warm-up sample)."""
    sample(-1)
    runs: list[RunResult] = []
    other: list[float] = []
    for run in range(settings.runs):
        wait_for_quiet()
        with CpuMeter(pgid) as meter:
            runs.append(_run([sample(run * SAMPLES + i) for i in range(SAMPLES)]))
        other.append(meter.other_cores)
    return Measurement(label, 1, runs, other_cores=other)


@dataclass(frozen=True)
class Assets:
    """What a first load (empty cache) fetched: JS and CSS files and their bytes, and the fonts
    and images beside them (not counted in the budget)."""

    files: int
    gzip: int  # each file gzip-compressed (level 9), summed: what the budget is about
    served: int  # as the server sent them to a client accepting gzip
    raw: int
    largest: list[tuple[str, int]]  # (file name, gzip bytes), the largest first
    others: int  # fonts and images
    other_bytes: int

    def within(self, kb: float) -> bool:
        return self.gzip / 1024 <= kb


def asset_kind(content_type: str, resource_type: str) -> str | None:
    """`js`, `css` or `other` (a font or image) for a fetched resource; None for the rest (the
    page itself, API calls)."""
    kind = content_type.split(";")[0].strip().lower()
    if kind.endswith("javascript") or resource_type == "script":
        return "js"
    if kind == "text/css" or resource_type == "stylesheet":
        return "css"
    if resource_type in ("font", "image", "media") or kind.startswith(("font/", "image/")):
        return "other"
    return None


def first_load_bytes(chrome: Any, base_url: str, email: str) -> Assets:
    """JS and CSS fetched by a first load (empty cache), and what else it fetched."""
    context = chrome.new_context()
    kinds: dict[str, str] = {}

    def note(response: Any) -> None:
        kind = asset_kind(response.headers.get("content-type", ""), response.request.resource_type)
        if kind is not None:
            kinds[response.url] = kind

    context.on("response", note)
    page = context.new_page()
    page.goto(base_url + "/")
    page.fill("#login-email", email)
    page.fill("#login-password", PASSWORD)
    page.click("#login-submit")
    page.wait_for_selector("body[data-ready=true]", timeout=60_000)
    page.wait_for_timeout(LAZY_LOAD_WAIT * 1000)
    context.close()
    gzipped = served = raw = others = other_bytes = 0
    sizes: list[tuple[str, int]] = []
    with httpx.Client(timeout=60) as client:
        for url, kind in sorted(kinds.items()):
            with client.stream("GET", url, headers={"Accept-Encoding": "gzip"}) as response:
                body = response.read()
                downloaded = response.num_bytes_downloaded
            if kind == "other":
                others += 1
                other_bytes += downloaded
                continue
            size = len(gzip.compress(body, 9))
            gzipped += size
            served += downloaded
            raw += len(body)
            sizes.append((url.rsplit("/", 1)[-1].split("?")[0], size))
    sizes.sort(key=lambda item: -item[1])
    return Assets(len(sizes), gzipped, served, raw, sizes[:5], others, other_bytes)


def run(settings: Settings, console: Console) -> list[ScenarioResult]:
    console.rule("chat_browser: the web client in headless Chromium, 1M messages")
    data = fetch_dataset(console)
    narrows = [n for n in data.narrows if n.messages >= FIRST]
    if len(narrows) < 2:
        raise BenchError("the data set has fewer than two topics of 100 messages")
    with tempfile.TemporaryDirectory(prefix="browser-", dir=DATA_DIR) as tmp:
        # A copy: the scenarios sign in, send messages and mark some read, and the cached data
        # set must stay as built for the other families.
        console.print("Copying the data set…")
        work = replace(data, data_dir=Path(tmp) / "data")
        shutil.copytree(data.data_dir, work.data_dir)
        return _measure(settings, console, work, narrows)


def _newest_id(base_url: str, data: FetchDataset, narrow: Narrow) -> int:
    response = httpx.get(
        base_url + "/api/v1/messages",
        params={
            "anchor": "newest",
            "num_before": 1,
            "num_after": 0,
            "narrow": orjson.dumps(
                [
                    {"operator": "stream", "operand": narrow.stream},
                    {"operator": "topic", "operand": narrow.topic},
                ]
            ).decode(),
        },
        auth=(data.reader.email, data.reader.api_key),
        timeout=60,
    )
    return int(response.json()["messages"][-1]["id"])


@dataclass
class Triage:
    inbox: Measurement
    recent: Measurement
    recent_cold: Measurement
    inbox_rows: int
    recent_rows: int

    def measurements(self) -> tuple[Measurement, ...]:
        return (self.inbox, self.recent, self.recent_cold)

    def results(self, common: str, timing: str) -> list[ScenarioResult]:
        opened = (
            "In a loaded client showing a topic (its page open for more than the "
            f"{PREFETCH_WAIT:g} s after which Recent conversations fetches its list), the hash "
            "changes to `{hash}`; measured from the change to the frame showing the view. "
            "Between two samples the client goes back to a topic it has not shown yet (untimed). "
        )
        return [
            ScenarioResult(
                family=FAMILY,
                key="inbox",
                title="Web client: opening Inbox",
                description=opened.format(hash="#inbox")
                + "Inbox is drawn from the client's unread state, without a request. "
                + common,
                rows=[Row(self.inbox, (Target("p50_ms", TRIAGE_TARGET_MS),))],
                notes=[
                    timing,
                    f"The view showed {self.inbox_rows:,} conversations with unread messages "
                    "(the data set leaves its newest 1% of messages unread).",
                    f"Other processes used up to {self.inbox.other_load:.2f} cores during the runs.",
                ],
            ),
            ScenarioResult(
                family=FAMILY,
                key="recent",
                title="Web client: opening Recent conversations",
                description=opened.format(hash="#recent")
                + "The second row opens it before its list was fetched: a new document at a "
                "topic, and as soon as that is painted the hash changes to `#recent`, so the "
                "time includes `GET /json/messages` of the newest 400 messages (no target: a "
                "person meets it only in the first 1.5 s of a page). " + common,
                rows=[
                    Row(self.recent, (Target("p50_ms", TRIAGE_TARGET_MS),)),
                    Row(self.recent_cold),
                ],
                notes=[
                    timing,
                    f"The view showed {self.recent_rows:,} conversations.",
                    f"Other processes used up to {self.recent.other_load:.2f} cores during the "
                    "runs.",
                ],
            ),
        ]


def _triage(
    settings: Settings, console: Console, pgid: int, page: Any, base: str, hashes: list[str]
) -> Triage:
    """Inbox and Recent conversations, opened from a topic in a loaded client; Recent also
    before its prefetch."""
    shown: set[str] = set()
    turn = iter(range(1, 1_000_000))

    def fresh(hash_: str) -> None:
        page.goto("about:blank")
        page.goto(base + "/" + hash_)
        page.evaluate(f"window.__painted({FIRST})")
        shown.clear()
        shown.add(hash_)

    def back_to_topic() -> None:
        target = hashes[next(turn) % len(hashes)]
        if target in shown:  # a topic shown before in this document may not load again
            fresh(target)
            time.sleep(PREFETCH_WAIT)
        else:
            page.evaluate(SWITCH, [target, FIRST])
            shown.add(target)

    def opener(view: str, selector: str) -> Any:
        def sample(_i: int) -> float:
            took = float(page.evaluate(OPEN_VIEW, [view, selector]))
            back_to_topic()
            return took

        return sample

    def cold(i: int) -> float:
        fresh(hashes[(i + 1) % len(hashes)])
        return float(page.evaluate(OPEN_VIEW, ["#recent", ".recent-table"]))

    fresh(hashes[0])
    time.sleep(PREFETCH_WAIT)
    console.print("[bold]chat_browser/inbox[/bold]")
    inbox = measure_runs(settings, pgid, "from a topic", opener("#inbox", ".inbox"))
    page.evaluate(OPEN_VIEW, ["#inbox", ".inbox"])
    inbox_rows = int(page.evaluate("document.querySelectorAll('#triage .inbox-row').length"))
    back_to_topic()
    console.print("[bold]chat_browser/recent[/bold]")
    recent = measure_runs(settings, pgid, "from a topic", opener("#recent", ".recent-table"))
    page.evaluate(OPEN_VIEW, ["#recent", ".recent-table"])
    recent_rows = int(page.evaluate("document.querySelectorAll('#triage .recent-row').length"))
    recent_cold = measure_runs(settings, pgid, "before its prefetch", cold)
    return Triage(inbox, recent, recent_cold, inbox_rows, recent_rows)


def _measure(
    settings: Settings, console: Console, data: FetchDataset, narrows: list[Narrow]
) -> list[ScenarioResult]:
    reader, other = _people(data, narrows[0].stream)
    server, served_by = atrium_server(data.data_dir)
    with running(server), browser() as chrome:
        assert server.proc is not None
        pgid = server.proc.pid
        base = server.base_url
        ids = _stream_ids(base, data)
        hashes = [topic_hash(ids, n) for n in narrows]
        page = signed_in(chrome, base, reader)

        parts: dict[str, list[float]] = {"scripts": [], "register": [], "messages": []}

        def first_paint(i: int) -> float:
            page.goto("about:blank")
            page.goto(base + "/" + hashes[i % len(hashes)])
            painted = float(page.evaluate(f"window.__painted({FIRST})"))
            for key, value in page.evaluate(PARTS).items():
                if value is not None:
                    parts[key].append(float(value))
            return painted

        console.print("[bold]chat_browser/first_paint[/bold]")
        first = measure_runs(settings, pgid, "navigation, warm cache", first_paint)
        assets = first_load_bytes(chrome, base, reader)

        page.goto(base + "/" + hashes[0])
        page.evaluate(f"window.__painted({FIRST})")

        def switch(i: int) -> float:
            target = hashes[(i + 1) % len(hashes)]
            if page.evaluate("location.hash") == target:
                target = hashes[(i + 2) % len(hashes)]
            return float(page.evaluate(SWITCH, [target, FIRST]))

        console.print("[bold]chat_browser/switch[/bold]")
        switching = measure_runs(settings, pgid, "topic to topic", switch)

        # The reader has unread messages in the topic: open it at its newest message, where
        # new ones are shown as they arrive.
        receiver = page
        receiver.goto("about:blank")
        receiver.goto(base + "/" + hashes[0] + f"/near/{_newest_id(base, data, narrows[0])}")
        receiver.evaluate(f"window.__painted({FIRST})")
        sender = signed_in(chrome, base, other)
        sender.evaluate(SEND_CLOCK)
        sender.evaluate("h => { location.hash = h; }", hashes[0])
        if sender.locator("#compose-textarea").is_hidden():
            sender.click("#new-topic-message")
        sender.select_option("#compose-stream", label=narrows[0].stream)
        sender.fill("#compose-topic", narrows[0].topic)

        def live(i: int) -> float:
            text = f"bench live message {i} {time.time_ns()}"
            receiver.evaluate(ARRIVAL, text)
            sender.fill("#compose-textarea", text)
            sender.press("#compose-textarea", "Enter")
            deadline = time.monotonic() + 30
            while (painted := receiver.evaluate("window.__arrived")) is None:
                if time.monotonic() > deadline:
                    raise BenchError(f"the other browser never showed {text!r}")
                time.sleep(0.02)
            sent = float(sender.evaluate("window.__sentAt"))
            return float(painted) - sent

        console.print("[bold]chat_browser/live[/bold]")
        liveness = measure_runs(settings, pgid, "browser to browser", live)
        sender.context.close()
        triage: Triage | None = None
        missing = ""
        if not page.locator("#nav-inbox").count():
            missing = (
                "chat_browser/inbox and chat_browser/recent do not exist in this source (the "
                "web client has no Inbox or Recent conversations view)"
            )
        else:
            try:
                triage = _triage(settings, console, pgid, page, base, hashes)
            except Exception as exc:  # the figures above stand; say what went wrong here
                missing = f"chat_browser/inbox and chat_browser/recent failed: {exc}"
    for m in (first, switching, liveness, *(triage.measurements() if triage else ())):
        console.print(
            f"  {m.label}: p50 {m.p50_ms:.1f} ms, p99 {m.p99_ms:.1f} ms "
            f"(runs: {' / '.join(f'{r.p50_ms:.1f}' for r in m.runs)})"
        )
    kb = assets.gzip / 1024
    console.print(
        f"  first load: {assets.files} JS/CSS files, {kb:.1f} KB gzip, "
        f"{assets.served / 1024:.1f} KB as served, {assets.raw / 1024:.1f} KB raw; "
        f"{assets.others} fonts/images ({assets.other_bytes / 1024:.1f} KB, not counted)"
    )
    common = (
        f"Headless Chromium ({chromium()}) driven by Playwright, one tab at 1280×900, on the "
        f"same two cores as the server. Data set: {data.describe()}. Served by {served_by}."
    )
    timing = (
        f"Each run takes {SAMPLES} samples after one warm-up; p50/p99 are over a run's samples, "
        "the figures the medians of the runs; req/s reads 1 / mean latency."
    )
    verdict = "pass" if assets.within(ASSET_TARGET_KB) else "FAIL"
    largest = ", ".join(f"{name} {size / 1024:.1f}" for name, size in assets.largest)
    results = [
        ScenarioResult(
            family=FAMILY,
            key="first_paint",
            title="Web client: navigation to the first 100 messages painted",
            description=(
                f"A signed-in reader navigates (a new document, HTTP cache warm) to a topic of "
                f"one of their streams, rotating through {len(narrows)} topics of 100+ messages; "
                f"measured from the navigation start to the frame showing {FIRST} messages "
                f"(the page loads, registers its event queue, fetches the narrow and renders). "
                + common
            ),
            rows=[
                Row(
                    first,
                    (Target("p50_ms", 300),),
                    () if assets.within(ASSET_TARGET_KB) else ("JS + CSS size",),
                )
            ],
            notes=[
                timing,
                "Where the time goes (medians over all samples): page and modules loaded "
                f"(DOMContentLoaded) {median(parts['scripts'])}, `POST /json/register` "
                f"{median(parts['register'])}, `GET /json/messages` {median(parts['messages'])}; "
                "the rest is rendering and waiting between them.",
                f"JS and CSS on a first load (empty cache, and {LAZY_LOAD_WAIT:g} s after the "
                f"client is ready for what it imports lazily): {assets.files} files, "
                f"**{kb:.1f} KB gzip** (each file at level 9), {assets.served / 1024:.1f} KB as "
                f"the server sent them to a client accepting gzip, {assets.raw / 1024:.1f} KB "
                f"uncompressed; target ≤ {ASSET_TARGET_KB} KB gzip: **{verdict}** (a miss marks "
                f"this row). Largest (KB gzip): {largest}. Not counted: {assets.others} fonts "
                f"and images ({assets.other_bytes / 1024:.1f} KB; the emoji font is fetched "
                "once a page shows an emoji).",
                f"Other processes used up to {first.other_load:.2f} cores during the runs.",
            ],
        ),
        ScenarioResult(
            family=FAMILY,
            key="switch",
            title="Web client: switching to another topic",
            description=(
                "In the loaded client, the narrow changes (URL hash) to another topic; measured "
                "from the change to the frame showing its messages (one `GET /messages` and a "
                "render). " + common
            ),
            rows=[Row(switching, (Target("p50_ms", 100),))],
            notes=[
                timing,
                f"Other processes used up to {switching.other_load:.2f} cores during the runs.",
            ],
        ),
        ScenarioResult(
            family=FAMILY,
            key="live",
            title="Web client: a message sent in one browser painted in another",
            description=(
                "Two people in two browser contexts look at the same topic; one types a message "
                "and presses Enter; measured from the keypress to the frame in which the other's "
                "feed shows it (send, event delivery by long poll, narrow check, render). " + common
            ),
            rows=[Row(liveness, (Target("p50_ms", 100),))],
            notes=[
                timing,
                f"Other processes used up to {liveness.other_load:.2f} cores during the runs.",
            ],
        ),
    ]
    if triage is None:
        raise BenchError(missing, results)
    return [*results, *triage.results(common, timing)]
