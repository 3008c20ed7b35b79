"""The fallback load generator: keep-alive HTTP/1.1 over raw asyncio streams, in its own process.

Run as `python -m bench.loadgen` with a JSON load description on stdin (host, port, connections,
duration, request templates); prints one JSON object: requests, errors, seconds, p50_ms, p99_ms,
error_sample. A response counts as an error unless it is a 200 whose body holds the load's
`success` text (`"result":"success"` by default); connection failures count too.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from dataclasses import dataclass, field
from typing import Any

SUCCESS = b'"result":"success"'


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    sample: str = ""

    def error(self, text: str) -> None:
        self.errors += 1
        if not self.sample:
            self.sample = text[:300]


def encode_request(host: str, port: int, template: dict[str, Any]) -> bytes:
    body = str(template.get("body", "")).encode()
    headers = {"Host": f"{host}:{port}", **template.get("headers", {})}
    if body or template["method"] not in {"GET", "HEAD"}:
        headers["Content-Length"] = str(len(body))
    head = f"{template['method']} {template['path']} HTTP/1.1\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return head.encode() + b"\r\n" + body


async def read_response(reader: asyncio.StreamReader) -> tuple[int, bytes, bool]:
    """Status, body and whether the connection stays open."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            key, value = line.split(":", 1)
            headers[key.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        chunks = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            data = await reader.readexactly(size + 2)
            if size == 0:
                break
            chunks.append(data[:-2])
        body = b"".join(chunks)
    elif "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    elif headers.get("connection", "").lower() == "close":
        body = await reader.read()  # the body ends with the connection (PHP's built-in server)
    else:
        body = b""
    keep_alive = headers.get("connection", "").lower() != "close"
    return status, body, keep_alive


async def connection(
    host: str,
    port: int,
    payloads: list[bytes],
    offset: int,
    deadline: float,
    tally: Tally,
    success: bytes = SUCCESS,
) -> None:
    index = offset
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    while time.perf_counter() < deadline:
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection(host, port)
            assert reader is not None
            payload = payloads[index % len(payloads)]
            index += 1
            started = time.perf_counter()
            writer.write(payload)
            status, body, keep_alive = await read_response(reader)
            tally.latencies.append(time.perf_counter() - started)
            if status != 200 or success not in body:
                tally.error(f"{status} {body[:300].decode(errors='replace')}")
            if not keep_alive:
                writer.close()
                reader = writer = None
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            tally.error(f"connection error: {exc!r}")
            if writer is not None:
                writer.close()
            reader = writer = None
            await asyncio.sleep(0.01)
    if writer is not None:
        writer.close()


async def run(spec: dict[str, Any]) -> dict[str, Any]:
    host, port = spec["host"], int(spec["port"])
    payloads = [encode_request(host, port, t) for t in spec["requests"]]
    tally = Tally()
    started = time.perf_counter()
    deadline = started + float(spec["duration"])
    success = str(spec.get("success", SUCCESS.decode())).encode()
    await asyncio.gather(
        *(
            connection(host, port, payloads, i, deadline, tally, success)
            for i in range(int(spec["connections"]))
        )
    )
    seconds = time.perf_counter() - started
    latencies = sorted(tally.latencies)

    def percentile(q: float) -> float:
        if not latencies:
            return 0.0
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000

    return {
        "requests": len(latencies),
        "errors": tally.errors,
        "seconds": seconds,
        "p50_ms": percentile(0.50),
        "p99_ms": percentile(0.99),
        "error_sample": tally.sample,
    }


def main() -> None:
    spec = json.load(sys.stdin)
    try:
        import uvloop  # type: ignore[import-not-found]
    except ImportError:
        result = asyncio.run(run(spec))
    else:
        result = uvloop.run(run(spec))
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
