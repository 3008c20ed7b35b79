"""MediaWiki's test of a common password: the Bloom filter of `wikimedia/common-passwords`.

The package holds the 100,000 most common passwords of SecLists as a Bloom filter built by
`pleonasm/bloom-filter`; MediaWiki refuses what the filter says it holds, false positives
included, so Atrium keeps the same bits (data/common_passwords.bin, made by
tools/convert_common_passwords.py; licences in data/COMMON_PASSWORDS_LICENSE) and the same test:

- hash number `i` (0 to k-1) of a password is HMAC-SHA1 keyed with the decimal digits of `i`
  over the password's UTF-8 bytes; its first eight bytes, big-endian, with the top bit cleared,
  modulo the bit count, is a bit position;
- bit `n` is bit `n % 8` (least significant first) of byte `n // 8`;
- a password is common when the bits of all k positions are set.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DATA_FILE = Path(__file__).parent / "data" / "common_passwords.bin"
MAGIC = b"BLM1"
# magic, bit count, hash count; the bit array's bytes follow
HEADER = struct.Struct(">4sII")
_LOW_63_BITS = (1 << 63) - 1


@dataclass(frozen=True, slots=True)
class BloomFilter:
    bits: bytes
    size: int  # in bits
    hash_count: int

    @classmethod
    def from_bytes(cls, data: bytes) -> BloomFilter:
        magic, size, hash_count = HEADER.unpack_from(data)
        bits = data[HEADER.size :]
        if magic != MAGIC or len(bits) != (size + 7) // 8:
            raise ValueError("not a Bloom filter of tools/convert_common_passwords.py")
        return cls(bits, size, hash_count)

    def positions(self, item: bytes) -> Iterator[int]:
        """The bit positions of `item`, one per hash, computed as they are asked for."""
        for i in range(self.hash_count):
            digest = hmac.digest(str(i).encode(), item, hashlib.sha1)
            yield (int.from_bytes(digest[:8], "big") & _LOW_63_BITS) % self.size

    def __contains__(self, item: bytes) -> bool:
        # stops hashing at the first clear bit
        return all(self.bits[n >> 3] >> (n & 7) & 1 for n in self.positions(item))


@cache
def common_password_filter() -> BloomFilter:
    """The filter, read on first use and kept for the life of the process."""
    return BloomFilter.from_bytes(DATA_FILE.read_bytes())


def is_common(password: str) -> bool:
    """Whether MediaWiki 1.39 counts `password` among the 100,000 most common ones."""
    return password.encode() in common_password_filter()
