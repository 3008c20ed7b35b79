"""BoundedCache: a byte bound that holds, and eviction of what was least recently used."""

from __future__ import annotations

from atrium.core.bounded_cache import BoundedCache


def sized(max_bytes: int) -> BoundedCache[int, bytes]:
    return BoundedCache(max_bytes, lambda _key, value: len(value))


def test_never_holds_more_than_its_bound() -> None:
    cache = sized(1000)
    for key in range(500):
        cache.put(key, b"x" * 37)
        assert cache.bytes <= 1000
        assert cache.get(key) == b"x" * 37
    assert 0 < len(cache) <= 1000 // 37
    assert cache.generation > 0


def test_recently_read_entries_survive_and_unread_ones_go() -> None:
    cache = sized(2000)  # generations of 1000 bytes
    for key in range(10):
        cache.put(key, b"a" * 100)  # the first generation is full
    cache.put(10, b"b" * 100)  # turns over: keys 0-9 are the older generation
    for key in (1, 3, 5, 7, 9):
        assert cache.get(key) is not None  # read again: back in the recent generation
    for key in range(11, 15):
        cache.put(key, b"b" * 100)
    assert all(key in cache for key in range(10))
    cache.put(15, b"c" * 100)  # turns over again: what nobody read since goes
    assert [key for key in range(10) if key in cache] == [1, 3, 5, 7, 9]
    assert all(key in cache for key in range(10, 16))
    assert cache.bytes <= 2000


def test_hot_path_reads_the_recent_generation_and_get_finds_the_rest() -> None:
    cache = sized(100)
    cache.put(1, b"x" * 40)
    cache.put(2, b"y" * 40)  # turns over: 1 is older
    assert cache.recent.get(1) is None
    assert cache.get(1) == b"x" * 40
    assert cache.recent.get(1) == b"x" * 40


def test_replacing_an_entry_counts_it_once() -> None:
    cache = sized(1000)
    for _ in range(5):
        cache.put(7, b"z" * 100)
    assert cache.bytes == 100
    assert len(cache) == 1


def test_an_entry_larger_than_a_generation_is_not_kept() -> None:
    cache = sized(100)
    cache.put(1, b"small")
    cache.put(2, b"x" * 60)
    assert 2 not in cache
    assert cache.get(1) == b"small"


def test_resize_down_empties_and_keeps_the_new_bound() -> None:
    cache = sized(1000)
    cache.put(1, b"x" * 100)
    cache.resize(100)
    assert len(cache) == 0 and cache.bytes == 0
    cache.put(2, b"y" * 40)
    cache.put(3, b"y" * 40)
    assert cache.bytes <= 100
