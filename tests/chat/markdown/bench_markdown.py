"""Renders per second for the issue's three messages: `python tests/chat/markdown/bench_markdown.py`.

Not a test (pytest does not collect it); meant for `make bench`.
"""

from __future__ import annotations

import timeit

from atrium.chat.markdown import (
    LinkableStream,
    Linkifier,
    MentionableUser,
    RenderContext,
    render_markdown,
)

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


def main() -> None:
    for name, text, number in [
        (f"typical ({len(TYPICAL)} chars)", TYPICAL, 2000),
        (f"with code block ({len(WITH_CODE)} chars)", WITH_CODE, 1000),
        (f"long ({len(LONG)} chars)", LONG, 50),
    ]:
        render_markdown(text, CTX)
        best = min(timeit.repeat(lambda t=text: render_markdown(t, CTX), number=number, repeat=3))
        print(f"{name}: {number / best:,.0f} renders/s")


if __name__ == "__main__":
    main()
