"""Outgoing mail: what missed-message notifications cost a send, and how a burst of them drains.

- `send`: `POST /api/v1/messages` at 1 connection, three ways on three fresh organizations (the
  send scenario's 60 users and 50-subscriber stream): the plain send (`chat/send`'s requests);
  sends that each notify someone (every other one a direct message, the rest stream messages
  mentioning a member), with the recipients' `enable_offline_email_notifications` off; and the
  same sends with it on, every recipient offline, so that each send records a notice and the
  missed-message mailer writes outbox rows that the sender drains to a real SMTP server while
  the load runs. The recipients' batching period is shortened to 1 s in the database (the API
  allows no less than 120 s) so that the mails are written and sent during the measured runs,
  not two minutes after them.
- `burst`: 1,000 missed-message notices (40 people each mentioned in 25 topics: one mail per
  person and topic) fall due at once; the sender drains them to an SMTP server that takes 5 ms
  per message (`bench/smtp_sink.py`, aiosmtpd on 127.0.0.1), while the server's memory is
  sampled: the drain rate against the server's pace, and the peak growth against the outbox's
  bound (the mails the sender holds at once), reported without a verdict (see its notes).

The SMTP server runs in the bench's process; Atrium reaches it with `ATRIUM_SMTP_SECURITY=none`.
"""

from __future__ import annotations

import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import httpx
import orjson
from rich.console import Console

from bench.chat import TOPICS, auth_header, send_requests
from bench.datasets import SEED, Account, SendOrg, build_send_org, message_text
from bench.harness import (
    BenchError,
    CpuMeter,
    HttpRequest,
    Measurement,
    PeakSampler,
    Row,
    RunResult,
    ScenarioResult,
    Server,
    Settings,
    Target,
    atrium_command,
    free_port,
    group_memory,
    measure,
    require_module,
    running,
    wait_for_quiet,
)
from bench.smtp_sink import Drain, SmtpServer, drain_figures

FAMILY = "mail"
LOW = 1
CONNECTIONS = (LOW,)

PAUSE = 0.005  # the SMTP server's pause per message: 200 messages a second at most
NOTIFY_BATCHING_SECONDS = 1
# The burst: BURST_USERS people, each mentioned once in each of BURST_TOPICS topics.
BURST_USERS = 40
BURST_TOPICS = 25
BURST = BURST_USERS * BURST_TOPICS
BURST_BODY_CHARS = 8_000  # each quoted in its mail: large mails make held ones show in memory
DRAIN_TIMEOUT = 300.0
# core/db.py's `PRAGMA cache_size` for each SQLite connection, in MB.
SQLITE_CACHE_MB = 64
# The drain keeps the server's pace when it reaches this share of it (the pace a bare client
# gets from the server with the burst's largest mail); the rest is the sender's own work.
PACE_SHARE_TARGET = 0.8
# Mails the bare client sends to measure that pace.
PACE_SAMPLE = 200
# Users `userN@bench.example` mentioned or written to (the senders are users 1–8; 10–49 are
# subscribed to the stream, 50–59 are not).
MENTIONED = range(10, 50)
WRITTEN_TO = range(10, 60)


def user_email(n: int) -> str:
    return f"user{n}@bench.example"


def user_name(n: int) -> str:
    return f"Bench User {n}"


def mail_server(data_dir: Path, smtp: SmtpServer) -> tuple[Server, str]:
    port = free_port()
    argv, served_by = atrium_command(port)
    env = {"ATRIUM_DATA_DIR": str(data_dir), "ATRIUM_RATE_LIMITS": "0", **smtp.env()}
    return Server("atrium", argv, port, "/api/v1/server_settings", env), served_by


def set_users(data_dir: Path, **columns: int) -> None:
    """Set settings columns of every user, before the server starts (or while it runs: SQLite
    in WAL mode takes the bench's short write between the server's)."""
    conn = sqlite3.connect(data_dir / "chat.sqlite3", timeout=30)
    try:
        assignments = ", ".join(f"{name} = ?" for name in columns)
        conn.execute(f"UPDATE user_profile SET {assignments}", tuple(columns.values()))
        conn.commit()
    finally:
        conn.close()


def notifying_requests(org: SendOrg) -> list[HttpRequest]:
    """64 sends that each notify one person: direct messages and stream mentions in turn."""
    rng = random.Random(SEED + 28)
    requests = []
    for i, content in enumerate(org.contents):
        sender = org.senders[i % len(org.senders)]
        if i % 2:
            fields = {
                "type": "private",
                "to": orjson.dumps([user_email(rng.choice(WRITTEN_TO))]).decode(),
                "content": content,
            }
        else:
            fields = {
                "type": "stream",
                "to": org.stream,
                "topic": TOPICS[i % len(TOPICS)],
                "content": f"@**{user_name(rng.choice(MENTIONED))}** {content}",
            }
        headers = {**auth_header(sender), "Content-Type": "application/x-www-form-urlencoded"}
        requests.append(HttpRequest("POST", "/api/v1/messages", headers, urlencode(fields)))
    return requests


def _check(server: Server, request: HttpRequest) -> None:
    answer = httpx.post(
        server.base_url + request.path, content=request.body, headers=dict(request.headers)
    )
    if answer.status_code != 200:
        raise BenchError(f"a test send failed: {answer.status_code} {answer.text[:300]}")


def _count(data_dir: Path, sql: str) -> int:
    conn = sqlite3.connect(f"file:{data_dir / 'chat.sqlite3'}?mode=ro", uri=True, timeout=30)
    try:
        return int(conn.execute(sql).fetchone()[0])
    finally:
        conn.close()


@contextmanager
def _organization() -> Iterator[tuple[Path, SendOrg]]:
    with tempfile.TemporaryDirectory(prefix="bench-mail-") as tmp:
        data_dir = Path(tmp)
        org = build_send_org(data_dir)
        # Digests go out on the organization's weekday: none may join the counted mails.
        set_users(data_dir, enable_digest_emails=0)
        yield data_dir, org


@dataclass
class SendRun:
    measurement: Measurement
    notices: int
    outbox: int
    mailed: int


def _send_variant(
    settings: Settings,
    console: Console,
    label: str,
    requests_of: Callable[[SendOrg], Sequence[HttpRequest]],
    **user_settings: int,
) -> tuple[SendRun, str]:
    """One organization and server: `label`'s requests (made for its accounts) at 1 connection."""
    with _organization() as (data_dir, org), SmtpServer(free_port(), PAUSE) as smtp:
        requests = requests_of(org)
        if user_settings:
            set_users(data_dir, **user_settings)
        server, served_by = mail_server(data_dir, smtp)
        with running(server):
            _check(server, requests[0])
            m = measure(settings, console, server, label, LOW, requests)
            time.sleep(NOTIFY_BATCHING_SECONDS + 1.5)  # what was due at the end is mailed
        notices = _count(data_dir, "SELECT count(*) FROM missed_message_email")
        outbox = _count(data_dir, "SELECT count(*) FROM mail_outbox")
        mailed = smtp.sink.count()
    return SendRun(m, notices, outbox, mailed), served_by


def _spread(m: Measurement) -> float:
    values = [r.p50_ms for r in m.runs]
    return max(values) - min(values)


def send_scenario(settings: Settings, console: Console) -> ScenarioResult:
    console.rule("mail / send: POST /api/v1/messages with missed-message mails on and off")
    plain, served_by = _send_variant(
        settings,
        console,
        "plain send",
        lambda org: send_requests(org.stream, org.senders, org.contents),
    )
    off, _ = _send_variant(
        settings,
        console,
        "notifying sends, mails off",
        notifying_requests,
        enable_offline_email_notifications=0,
    )
    on, _ = _send_variant(
        settings,
        console,
        "notifying sends, mails on",
        notifying_requests,
        email_notifications_batching_period_seconds=NOTIFY_BATCHING_SECONDS,
    )
    if on.outbox == 0 or on.mailed == 0:
        raise BenchError(
            f"with mails on, no mail was written or sent ({on.outbox} outbox rows, "
            f"{on.mailed} at the SMTP server)"
        )
    spread = max(_spread(off.measurement), _spread(on.measurement))
    limit = off.measurement.p50_ms * 1.10 + spread
    ratio = on.measurement.p50_ms / off.measurement.p50_ms if off.measurement.p50_ms else 0.0
    return ScenarioResult(
        family=FAMILY,
        key="send",
        title="Send a message with missed-message mails on, beside the plain send",
        description=(
            "`POST /api/v1/messages` at 1 connection on three fresh SQLite organizations of 60 "
            "users (a 50-subscriber stream, 8 senders taking turns). **plain send**: `chat/send`'s "
            "64 requests (stream messages, one in eight with a mention). **notifying sends**: 64 "
            "requests that each notify one person, every other one a direct message to one of "
            f"{len(WRITTEN_TO)} members, the rest a stream message mentioning one of "
            f"{len(MENTIONED)} subscribers; everyone is offline (Atrium sends a missed-message "
            "mail whatever the presence). With **mails off** the recipients' "
            "`enable_offline_email_notifications` is false, so a send records no notice; with "
            "**mails on** it is true and their `email_notifications_batching_period_seconds` is "
            f"{NOTIFY_BATCHING_SECONDS} s (set in the database: the API's least is 120 s), so "
            "that during the measured runs each send records a notice, the missed-message task "
            "writes the mails to the outbox every second and the sender hands them to a real "
            f"SMTP server (aiosmtpd on 127.0.0.1, {PAUSE * 1000:.0f} ms per message), all in the "
            f"server's process. Served by {served_by}."
        ),
        rows=[
            Row(plain.measurement),
            Row(off.measurement),
            Row(on.measurement, (Target("p50_ms", limit),)),
        ],
        notes=[
            f"Target of the mails-on row: its p50 no worse than the mails-off p50 "
            f"({off.measurement.p50_ms:.2f} ms) plus 10% plus the larger spread of the two "
            f"rows' runs ({spread:.2f} ms): ≤ {limit:.2f} ms. Mails on / mails off: "
            f"{ratio:.2f}× at p50.",
            f"Mails on: {on.outbox:,} mails written to the outbox and {on.mailed:,} accepted by "
            f"the SMTP server by the end ({on.notices:,} notices not yet due); mails off: "
            f"{off.outbox} outbox rows, {off.notices} notices. The plain send recorded "
            f"{plain.notices:,} notices (its mentions, due after the default 120 s: no mail "
            "during its runs).",
        ],
    )


# --- The burst -----------------------------------------------------------------------------------


def _long_body(rng: random.Random) -> str:
    parts: list[str] = []
    while sum(len(p) + 2 for p in parts) < BURST_BODY_CHARS:
        parts.append(message_text(rng))
    return "\n\n".join(parts)[:BURST_BODY_CHARS]


def _send_burst(server: Server, sender: Account, stream: str, run: int) -> None:
    """BURST stream messages, each mentioning one of BURST_USERS people in one of BURST_TOPICS
    topics, so that each person gets one notice per topic."""
    rng = random.Random(SEED + run)
    bodies = [_long_body(rng) for _ in range(16)]
    with httpx.Client(base_url=server.base_url, headers=auth_header(sender), timeout=60) as client:
        for i in range(BURST):
            person = MENTIONED[i % BURST_USERS]
            topic = f"burst {run}-{i // BURST_USERS}"
            answer = client.post(
                "/api/v1/messages",
                data={
                    "type": "stream",
                    "to": stream,
                    "topic": topic,
                    "content": f"@**{user_name(person)}** {bodies[i % len(bodies)]}",
                },
            )
            if answer.status_code != 200:
                raise BenchError(f"a burst send failed: {answer.status_code} {answer.text[:300]}")


@dataclass
class BurstRun:
    drain: Drain
    first_after: float  # seconds from the notices falling due to the first mail
    idle: int
    peak: int
    unsent: int
    other_cores: float

    @property
    def growth(self) -> int:
        return self.peak - self.idle


def _burst(
    server: Server, smtp: SmtpServer, data_dir: Path, org: SendOrg, run: int, console: Console
) -> BurstRun:
    assert server.proc is not None
    pgid = server.proc.pid
    _send_burst(server, org.senders[0], org.stream, run)
    due = _count(data_dir, "SELECT count(*) FROM missed_message_email")
    if due != BURST:
        raise BenchError(f"{due} notices recorded for the burst's {BURST} mentions")
    smtp.sink.take()
    wait_for_quiet()
    idle = group_memory(pgid).pss_bytes
    with (
        CpuMeter(pgid) as meter,
        PeakSampler(lambda: group_memory(pgid).pss_bytes, 0.05) as memory,
    ):
        # The batching period's end brought forward: every notice falls due at once.
        started = time.monotonic()
        set_missed_due(data_dir)
        arrived = smtp.sink.wait_for(BURST, DRAIN_TIMEOUT)
        time.sleep(0.3)
    arrivals = smtp.sink.take()
    if not arrived:
        raise BenchError(
            f"only {len(arrivals)} of {BURST} mails reached the SMTP server in "
            f"{DRAIN_TIMEOUT:.0f} s"
        )
    time.sleep(0.5)  # the last batch is marked sent
    unsent = _count(data_dir, "SELECT count(*) FROM mail_outbox WHERE sent IS NULL")
    drain = drain_figures(arrivals, PAUSE)
    first_after = min(a.at for a in arrivals) - started
    result = BurstRun(drain, first_after, idle, memory.peak, unsent, meter.other_cores)
    console.print(
        f"  burst {run + 1}: {drain.mails} mails in {drain.seconds:.2f} s, {drain.rate:.0f}/s "
        f"({drain.share_of_pace:.0%} of the server's {drain.pace:.0f}/s), first after "
        f"{first_after:.2f} s; PSS {idle / 1e6:.0f} MB idle, peak +{result.growth / 1e6:.1f} MB"
    )
    return result


def set_missed_due(data_dir: Path) -> None:
    conn = sqlite3.connect(data_dir / "chat.sqlite3", timeout=30)
    try:
        conn.execute("UPDATE missed_message_email SET due = 0")
        conn.commit()
    finally:
        conn.close()


def burst_scenario(settings: Settings, console: Console) -> ScenarioResult:
    from atrium.chat.actions.missed_messages import MESSAGES_PER_MAIL, USERS_PER_BATCH
    from atrium.workspace.mail_sender import BATCH, HELD_BATCHES

    console.rule(f"mail / burst: {BURST:,} missed-message mails drained to an SMTP server")
    runs: list[BurstRun] = []
    with _organization() as (data_dir, org), SmtpServer(free_port(), PAUSE) as smtp:
        server, served_by = mail_server(data_dir, smtp)
        with running(server):
            for run in range(settings.runs):
                runs.append(_burst(server, smtp, data_dir, org, run, console))
            assert server.proc is not None
            pgid = server.proc.pid
            # With the server's memory sampled as during a burst: the sampling runs in this
            # process, beside the SMTP server.
            with PeakSampler(lambda: group_memory(pgid).pss_bytes, 0.05):
                bare = smtp.bare_pace(smtp.sink.largest, PACE_SAMPLE)
    console.print(f"  a bare client with the largest mail: {bare.rate:.0f}/s")
    drains = [r.drain for r in runs]
    measurement = Measurement(
        f"{BURST:,} mails, SMTP server at {PAUSE * 1000:.0f} ms each",
        LOW,
        [
            RunResult(
                requests=d.mails,
                errors=max(0, BURST - d.mails),
                seconds=d.seconds,
                p50_ms=d.gap_p50_ms,
                p99_ms=d.gap_p99_ms,
            )
            for d in drains
        ],
        other_cores=[r.other_cores for r in runs],
    )
    nominal = drains[0].pace
    pace = bare.rate
    largest = max(d.largest for d in drains)
    burst_bytes = statistics.median(d.total_bytes for d in drains)
    bound = BATCH * HELD_BATCHES * largest
    growth = max(r.growth for r in runs)
    unsent = max(r.unsent for r in runs)
    return ScenarioResult(
        family=FAMILY,
        key="burst",
        title=f"A burst of {BURST:,} missed-message mails drained to an SMTP server",
        description=(
            f"{BURST_USERS} members are each mentioned once in each of {BURST_TOPICS} topics of "
            f"a 50-subscriber stream ({BURST:,} stream messages of {BURST_BODY_CHARS:,} "
            "characters, sent through the API one after another); their notices then fall due "
            "at once (one database update brings the batching period's end forward), and the "
            f"server mails each person once per topic: {BURST:,} mails, each quoting its "
            "message. The SMTP server (aiosmtpd on 127.0.0.1, in the bench's process) waits "
            f"{PAUSE * 1000:.0f} ms before accepting each message, so it takes at most "
            f"{nominal:.0f} a second, fewer as it also reads and parses each message: its pace "
            f"is measured after the bursts, as the rate at which a bare smtplib client doing "
            f"nothing else gets {PACE_SAMPLE} copies of the burst's largest mail accepted over "
            "one connection, with the server's memory sampled as during a burst. req/s is the drain rate (mails a second from the first arrival "
            "to the last); p50/p99 are the intervals between arrivals; errors are mails that "
            f"did not arrive. One burst per run. Served by {served_by}."
        ),
        rows=[Row(measurement, (Target("rps", pace * PACE_SHARE_TARGET),))],
        notes=[
            f"Drain rate {measurement.rps:,.0f} mails/s, {measurement.rps / pace:.0%} of the "
            f"SMTP server's pace with these mails ({pace:.0f}/s for a bare client with the "
            f"largest, {largest / 1000:.1f} KB; {nominal:.0f}/s by its pause alone; target ≥ "
            f"{PACE_SHARE_TARGET:.0%} of the measured pace, the rest being the sender's own "
            "work: building each mail's bytes for the connection, and the claim and the "
            "marking of each batch, which overlap the sending of the batch before). First mail "
            + ", ".join(f"{r.first_after:.2f}" for r in runs)
            + " s after the notices fell due (the missed-message task looks once a second). "
            f"Outbox rows still unsent afterwards: {unsent}.",
            f"The outbox's bound: the sender claims {BATCH} mails at a time and holds at most "
            f"{HELD_BATCHES} such batches (the one being sent and the next: "
            f"{BATCH * HELD_BATCHES} × the largest mail, {largest / 1000:.1f} KB: "
            f"{bound / 1e6:.2f} MB); the missed-message task writes the mails of at most "
            f"{USERS_PER_BATCH} people per transaction, quoting at most {MESSAGES_PER_MAIL} "
            "messages per mail, straight into the outbox table.",
            "Server memory (PSS of its process group, sampled every 50 ms): idle before each "
            "burst "
            + ", ".join(f"{r.idle / 1e6:.0f}" for r in runs)
            + " MB; peak growth during it "
            + ", ".join(f"{r.growth / 1e6:+.1f}" for r in runs)
            + f" MB (largest {growth / 1e6:+.1f} MB), against {burst_bytes / 1e6:.1f} MB for "
            "the burst's mails together. No verdict: the growth includes the page cache of the "
            f"server's SQLite connections (up to {SQLITE_CACHE_MB} MB each), through which the "
            "mails pass as the missed-message task writes them to the outbox table and the "
            "sender reads them back, so a burst smaller than that cache cannot tell the "
            f"sender's own bound ({bound / 1e6:.2f} MB) from it.",
        ],
    )


def run(settings: Settings, console: Console) -> list[ScenarioResult]:
    require_module("atrium.workspace.mail_sender", "outgoing mail (mail/send, mail/burst)")
    require_module(
        "atrium.chat.actions.missed_messages", "missed-message mails (mail/send, mail/burst)"
    )
    return [send_scenario(settings, console), burst_scenario(settings, console)]
