// The feed's message window and the events merged into it, without a page.

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  addMessages,
  appendsAtEnd,
  applyAvatar,
  applyEdit,
  applyFlags,
  applyReaction,
  createWindow,
  forget,
  isUnread,
  trim,
} from "../../src/atrium/chat/web/static/message_window.js";

const message = (id, extra = {}) => ({ id, sender_id: 1, flags: [], ...extra });

function windowOf(ids, extra = {}) {
  const win = createWindow([]);
  addMessages(win, ids.map((id) => message(id, extra)));
  return win;
}

const ids = (win) => win.messages.map((m) => m.id);

test("messages join in id order and a known one takes the newer copy", () => {
  const win = windowOf([5, 1, 3]);
  addMessages(win, [message(2), message(3, { content: "edited" })]);
  assert.deepEqual(ids(win), [1, 2, 3, 5]);
  assert.equal(win.byId.get(3).content, "edited");
  assert.equal(win.byId.get(3), win.messages[2]);
});

test("trimming keeps one end and forgets that the other is complete", () => {
  const older = windowOf([1, 2, 3, 4, 5]);
  older.foundOldest = older.foundNewest = true;
  assert.deepEqual(ids({ messages: trim(older, "oldest", 3) }), [4, 5]);
  assert.deepEqual(ids(older), [1, 2, 3]);
  assert.equal(older.byId.has(4), false);
  assert.equal(older.foundNewest, false);
  assert.equal(older.foundOldest, true);

  const newer = windowOf([1, 2, 3, 4, 5]);
  newer.foundOldest = newer.foundNewest = true;
  trim(newer, "newest", 3);
  assert.deepEqual(ids(newer), [3, 4, 5]);
  assert.equal(newer.foundOldest, false);
  assert.equal(newer.foundNewest, true);

  const small = windowOf([1, 2]);
  small.foundNewest = true;
  assert.deepEqual(trim(small, "oldest", 3), []);
  assert.equal(small.foundNewest, true);
});

test("a new message appends only after the last one and while there is room", () => {
  const win = windowOf([1, 2, 3]);
  assert.equal(appendsAtEnd(win, message(4)), true);
  assert.equal(appendsAtEnd(win, message(4), 3), false);
  assert.equal(appendsAtEnd(win, message(3)), false);
  assert.equal(appendsAtEnd(createWindow([]), message(1)), false);
});

test("forgetting a message removes it from the list and the index", () => {
  const win = windowOf([1, 2, 3]);
  forget(win, 2);
  assert.deepEqual(ids(win), [1, 3]);
  assert.equal(win.byId.has(2), false);
});

test("flag events change only the messages in the window whose flag differs", () => {
  const win = windowOf([1, 2, 3]);
  win.byId.get(2).flags = ["read"];
  const changed = applyFlags(win, { op: "add", flag: "read", messages: [1, 2, 9] });
  assert.deepEqual(ids({ messages: changed }), [1]);
  assert.deepEqual(win.byId.get(1).flags, ["read"]);

  const removed = applyFlags(win, { op: "remove", flag: "read", messages: [1, 3] });
  assert.deepEqual(ids({ messages: removed }), [1]);
  assert.deepEqual(win.byId.get(1).flags, []);

  const starred = applyFlags(win, { op: "add", flag: "starred", messages: [3] });
  assert.deepEqual(ids({ messages: starred }), [3]);
  assert.deepEqual(win.byId.get(3).flags, ["starred"]);
});

test("marking all as read reaches every message in the window", () => {
  const win = windowOf([1, 2, 3]);
  win.byId.get(3).flags = ["read", "starred"];
  const changed = applyFlags(win, { op: "add", flag: "read", all: true, messages: [] });
  assert.deepEqual(ids({ messages: changed }), [1, 2]);
  assert.ok(win.messages.every((m) => m.flags.includes("read")));
  assert.deepEqual(win.byId.get(3).flags, ["read", "starred"]);
});

test("one's own messages never show as unread", () => {
  assert.equal(isUnread(message(1, { sender_id: 7 }), 8), true);
  assert.equal(isUnread(message(1, { sender_id: 8 }), 8), false);
  assert.equal(isUnread(message(1, { sender_id: 7, flags: ["read"] }), 8), false);
  assert.equal(isUnread({ id: 1, sender_id: 7 }, 8), true);
});

test("reactions are added and removed by user, emoji and type", () => {
  const win = windowOf([1]);
  const event = { message_id: 1, emoji_name: "tada", emoji_code: "1f389", reaction_type: "unicode_emoji", user_id: 5 };
  assert.equal(applyReaction(win, { ...event, op: "add" }), win.byId.get(1));
  applyReaction(win, { ...event, op: "add", user_id: 6 });
  assert.deepEqual(win.byId.get(1).reactions.map((r) => r.user_id), [5, 6]);
  applyReaction(win, { ...event, op: "remove", reaction_type: "realm_emoji" });
  assert.equal(win.byId.get(1).reactions.length, 2);
  applyReaction(win, { ...event, op: "remove" });
  assert.deepEqual(win.byId.get(1).reactions.map((r) => r.user_id), [6]);
  assert.equal(applyReaction(win, { ...event, op: "add", message_id: 9 }), null);
});

test("an edit replaces the content of its message and records the history", () => {
  const win = windowOf([1, 2], { content: "<p>old</p>", match_content: "<p><span>old</span></p>" });
  const present = applyEdit(win, {
    message_id: 1,
    message_ids: [1, 9],
    rendered_content: "<p>new</p>",
    orig_content: "old",
    edit_timestamp: 100,
  });
  assert.deepEqual(present, [1]);
  const edited = win.byId.get(1);
  assert.equal(edited.content, "<p>new</p>");
  assert.equal(edited.match_content, undefined);
  assert.equal(edited.last_edit_timestamp, 100);
  assert.deepEqual(edited.edit_history, [{ prev_content: "old" }]);
  assert.equal(win.byId.get(2).content, "<p>old</p>");
});

test("a move changes topic and stream of every message it names", () => {
  const win = windowOf([1, 2, 3], { type: "stream", stream_id: 10, subject: "a", display_recipient: "ten" });
  const present = applyEdit(
    win,
    { message_id: 1, message_ids: [1, 2], subject: "b", orig_subject: "a", new_stream_id: 20, edit_timestamp: 5 },
    (id) => (id === 20 ? "twenty" : undefined),
  );
  assert.deepEqual(present, [1, 2]);
  for (const id of [1, 2]) {
    const moved = win.byId.get(id);
    assert.equal(moved.subject, "b");
    assert.equal(moved.stream_id, 20);
    assert.equal(moved.display_recipient, "twenty");
    assert.deepEqual(moved.edit_history, [{ prev_topic: "a" }]);
  }
  assert.equal(win.byId.get(3).subject, "a");
});

test("a new avatar reaches the sender's messages only", () => {
  const win = windowOf([1, 2]);
  win.byId.get(2).sender_id = 4;
  assert.equal(applyAvatar(win, { user_id: 4, avatar_url: "/a.png" }), true);
  assert.equal(win.byId.get(2).avatar_url, "/a.png");
  assert.equal(win.byId.get(1).avatar_url, undefined);
  assert.equal(applyAvatar(win, { user_id: 99, avatar_url: "/b.png" }), false);
});
