"""What the ops scenarios read from the commands they run, and their percentiles."""

from __future__ import annotations

import pytest
from bench.ops import imported_counts, percentile


def test_counts_are_read_from_the_import_summary() -> None:
    output = (
        "Imported the organization (id 1).\n"
        "   100009 messages\n"
        "        5 users\n"
        "       12 messages without a known sender or recipient\n"
        "Not carried over:\n"
        "  - zerver_userpresence (1 rows)\n"
    )
    assert imported_counts(output) == {
        "messages": 100009,
        "users": 5,
        "messages without a known sender or recipient": 12,
    }


def test_percentile_is_the_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 51.0
    assert percentile(values, 0.99) == 100.0
    assert percentile([3.0], 0.99) == 3.0
    with pytest.raises(ValueError):
        percentile([], 0.5)
