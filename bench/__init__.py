"""Atrium's benchmark suite: `make bench` (`python -m bench`) runs it and rewrites BENCHMARKS.md.

Layout:

- `harness`: server processes pinned to core 0, load generators pinned to core 1, measurements;
- `loadgen`: the pure-asyncio load generator used when `wrk` is not installed;
- `apps`: the ASGI applications served for the ceilings, and the granian launcher;
- `ceiling`: the bare-framework ceilings every figure is quoted against;
- `datasets`: data generation, cached under `bench/.data/`;
- `chat`: the chat scenarios (one module per scenario family; a wiki family goes beside it);
- `report`: BENCHMARKS.md.
"""
