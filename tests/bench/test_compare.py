"""The before-and-after comparison of two `make bench` reports, and a partial run keeping it."""

from __future__ import annotations

from pathlib import Path

from bench.report import merge_previous

from bench import compare


def report(source: str, send: str, runs: str, fetch: str) -> str:
    return f"""# Benchmarks

| | |
|---|---|
| Date | 2026-11-29 01:00 UTC |
| Atrium source | {source} |

## Summary

| scenario | load | req/s | p50 ms | p99 ms | target | result |
|---|---|--:|--:|--:|---|---|
| chat / send | send, 1 connection | {send} | 1.00 | 9.00 | p50 ≤ 5 ms | **pass** |
| chat / fetch | fetch, 1 connection | {fetch} | 0.40 | 0.70 | p50 ≤ 7 ms | **pass** |
| worst_inputs / template-bomb | action=parse of {{{{L6}}}} | 6 | 1.17 | 10534.2 | p99 ≤ 100 ms | **FAIL** |

## chat / send: Send a stream message

Runs (req/s): send, 1 connection: {runs}; embedded: POST → event: 1 / 2 / 3.

## chat / fetch: Fetch 100 messages

## worst_inputs / template-bomb: {{{{L6}}}}
"""


def test_a_loss_beyond_spread_and_ten_percent_is_worse(tmp_path: Path) -> None:
    before, after = tmp_path / "before.md", tmp_path / "after.md"
    before.write_text(report("commit old", "1,000", "990 / 1,000 / 1,010", "2,000"))
    # Send: -15 %, allowed 10 % + 2 % + 2 %: worse. Fetch: -5 %, within 10 %: same.
    after.write_text(report("commit new", "850", "840 / 850 / 857", "1,900"))
    section = compare.compare(before, after, skip={"worst_inputs"})
    rows = {line.split("|")[1].strip(): line for line in section.splitlines() if "| chat" in line}
    assert "**worse**" in rows["chat / send"] and "−14%" in rows["chat / send"]
    assert rows["chat / fetch"].rstrip(" |").endswith("same")
    assert "worst_inputs" not in section
    assert "1 figure(s) worse of 2 compared." in section


def test_the_section_is_written_once_and_kept_by_a_partial_run(tmp_path: Path) -> None:
    before, after = tmp_path / "before.md", tmp_path / "after.md"
    before.write_text(report("commit old", "1,000", "1,000 / 1,000 / 1,000", "2,000"))
    after.write_text(report("commit new", "1,300", "1,300 / 1,300 / 1,300", "2,000"))
    compare.main([str(before), str(after), "--into", str(after)])
    compare.main([str(before), str(after), "--into", str(after)])
    text = after.read_text()
    assert text.count(compare.HEADING) == 1 and "| better |" in text
    partial = report("commit newer", "1,200", "1,200 / 1,200 / 1,200", "2,000")
    merged = merge_previous(partial, text, {"chat"}, ["chat", "worst_inputs"])
    assert merged.count(compare.HEADING) == 1
