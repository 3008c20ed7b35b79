// The client's state: the register response, the events applied to it, and the unread counts.

import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { applyEvent, bus, loadState, state, unreadCounts } from "../../src/atrium/chat/web/static/state.js";

beforeEach(() => {
  loadState({
    user_id: 1,
    queue_id: "q",
    last_event_id: -1,
    streams: [{ stream_id: 12, name: "general" }],
    starred_messages: [7],
    unread_msgs: {
      streams: [{ stream_id: 12, topic: "Lunch", unread_message_ids: [10, 11] }],
      pms: [{ other_user_id: 2, unread_message_ids: [20] }],
      huddles: [{ user_ids_string: "1,2,3", unread_message_ids: [30] }],
      mentions: [11],
    },
  });
});

test("the register response's unread messages are counted by stream, topic and conversation", () => {
  const counts = unreadCounts();
  assert.equal(counts.total, 4);
  assert.equal(counts.mentions, 1);
  assert.equal(counts.streams.get(12), 2);
  assert.equal(counts.topics.get("12:lunch"), 2);
  assert.equal(counts.dms.get("2"), 1);
  assert.equal(counts.dms.get("2,3"), 1);
});

test("reading removes messages from the unread counts, and marking unread brings them back", () => {
  applyEvent({ type: "update_message_flags", op: "add", flag: "read", messages: [10, 20] });
  assert.deepEqual([...state.unread.keys()], [11, 30]);
  applyEvent({
    type: "update_message_flags",
    op: "remove",
    flag: "read",
    messages: [10],
    message_details: { 10: { type: "stream", stream_id: 12, topic: "Lunch", mentioned: true } },
  });
  assert.equal(unreadCounts().mentions, 2);
  applyEvent({ type: "update_message_flags", op: "add", flag: "read", all: true, messages: [] });
  assert.equal(unreadCounts().total, 0);
});

test("stars follow the flag events and deletions", () => {
  applyEvent({ type: "update_message_flags", op: "add", flag: "starred", messages: [8] });
  applyEvent({ type: "update_message_flags", op: "remove", flag: "starred", messages: [7] });
  assert.deepEqual([...state.starred], [8]);
  applyEvent({ type: "delete_message", message_ids: [8, 10] });
  assert.deepEqual([...state.starred], []);
  assert.equal(state.unread.has(10), false);
});

test("a new message is unread unless the event says read, and a mention counts", () => {
  const message = { id: 40, type: "stream", stream_id: 12, subject: "news", sender_id: 2 };
  applyEvent({ type: "message", message, flags: ["mentioned"] });
  assert.deepEqual(state.unread.get(40), { kind: "stream", stream_id: 12, topic: "news", mentioned: true });
  assert.deepEqual(message.flags, ["mentioned"]);
  applyEvent({ type: "message", message: { ...message, id: 41 }, flags: ["read"] });
  assert.equal(state.unread.has(41), false);
});

test("a move takes unread messages to their new stream and topic", () => {
  applyEvent({ type: "update_message", message_id: 10, message_ids: [10, 20], subject: "Dinner", new_stream_id: 13 });
  assert.deepEqual(state.unread.get(10), { kind: "stream", stream_id: 13, topic: "Dinner" });
  assert.equal(state.unread.get(20).kind, "dm");
});

test("the bus tells every listener of the event and its type, and one failing stops none", (t) => {
  const seen = [];
  t.mock.method(console, "warn", () => {});
  bus.on("event:alert_words", () => {
    throw new Error("broken view");
  });
  bus.on("event:alert_words", (event) => seen.push(event.alert_words));
  applyEvent({ type: "alert_words", alert_words: ["lunch"] });
  assert.deepEqual(seen, [["lunch"]]);
  assert.deepEqual(state.alertWords, ["lunch"]);
  assert.equal(console.warn.mock.calls.length, 1);
});
