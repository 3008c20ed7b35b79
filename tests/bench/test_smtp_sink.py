"""The mail scenarios' SMTP server: it paces what it accepts, and the drain figures are read
from its arrivals."""

from __future__ import annotations

import smtplib

import pytest
from bench.smtp_sink import Arrival, SmtpServer, drain_figures

from tests.conftest import free_port


def test_drain_rate_counts_intervals_between_arrivals() -> None:
    arrivals = [Arrival(10.0 + i * 0.01, 100 + i, "a@x.test") for i in range(101)]
    drain = drain_figures(arrivals, pause=0.005)
    assert drain.mails == 101
    assert drain.seconds == pytest.approx(1.0)
    assert drain.rate == pytest.approx(100.0)
    assert drain.pace == pytest.approx(200.0)
    assert drain.share_of_pace == pytest.approx(0.5)
    assert drain.gap_p50_ms == pytest.approx(10.0)
    assert drain.largest == 200
    assert drain.total_bytes == sum(100 + i for i in range(101))


def test_drain_figures_need_two_arrivals() -> None:
    with pytest.raises(ValueError):
        drain_figures([Arrival(1.0, 10, "a@x.test")], pause=0.005)


def test_the_server_accepts_at_its_pace() -> None:
    pause = 0.02
    with SmtpServer(free_port(), pause) as server:
        client = smtplib.SMTP("127.0.0.1", server.port, timeout=10)
        try:
            for i in range(5):
                client.sendmail("from@x.test", [f"to{i}@x.test"], f"Subject: {i}\r\n\r\nhi\r\n")
        finally:
            client.quit()
        assert server.sink.wait_for(5, timeout=5)
        arrivals = server.sink.take()
    assert [a.recipient for a in arrivals] == [f"to{i}@x.test" for i in range(5)]
    drain = drain_figures(arrivals, pause)
    # Each message waits `pause` before its 250, so four intervals take at least four pauses.
    assert drain.seconds >= 4 * pause * 0.95
    assert drain.rate <= drain.pace * 1.05
    assert server.sink.count() == 0
