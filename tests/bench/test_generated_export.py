"""The import scenario's generated export reads as a Zulip export: its messages in chunks of
1,000 after the import tests' own, each with a user-message row per subscriber."""

from __future__ import annotations

from pathlib import Path

from bench.generated_export import CHUNK, READ, write_export

from atrium.chat.porting.archive import extract
from atrium.chat.porting.zulip_reader import read_export
from tests.chat.zulip_export_builder import standard_export


def test_the_export_holds_every_generated_message(tmp_path: Path) -> None:
    archive = tmp_path / "export.tar.gz"
    generated = 2 * CHUNK + 5
    standard = len(standard_export().messages)
    assert write_export(archive, generated) == generated + standard
    (tmp_path / "out").mkdir()
    export = read_export(extract(archive, tmp_path / "out"))
    chunks = list(export.message_chunks())
    assert [len(messages) for messages, _ums in chunks] == [CHUNK, CHUNK, standard + 5]
    messages = [m for chunk, _ums in chunks for m in chunk]
    ids = [m["id"] for m in messages]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    by_message: dict[int, list[dict[str, object]]] = {}
    for _chunk, ums in chunks:
        for um in ums:
            by_message.setdefault(int(um["message"]), []).append(um)
    newest = messages[-1]
    readers = by_message[newest["id"]]
    # The stream's subscribers each have a row; the newest messages are unread but by the sender.
    assert len(readers) in (3, 4)
    assert {um["user_profile"] for um in readers if um["flags_mask"] & READ} == {newest["sender"]}
    oldest_generated = messages[standard]
    assert all(um["flags_mask"] & READ for um in by_message[oldest_generated["id"]])
    assert oldest_generated["rendered_content"].startswith("<p>")
    # The import tests' organization comes along unchanged.
    assert {r["id"] for r in export.table("zerver_userprofile")} == {
        r["id"] for r in standard_export().realm["zerver_userprofile"]
    }
