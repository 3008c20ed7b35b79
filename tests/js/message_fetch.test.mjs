// Fetching the feed's messages, against a stand-in for the browser's fetch.

import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import {
  BATCH,
  FIRST_BEFORE,
  fetchMessages,
  matching,
  prefetchNarrow,
  startAnchor,
  takePrefetched,
} from "../../src/atrium/chat/web/static/message_fetch.js";

let requests = [];
let answer = {};

beforeEach(() => {
  requests = [];
  answer = { result: "success", messages: [] };
  globalThis.fetch = async (url, init) => {
    requests.push({ url: new URL(url, "http://chat.test"), init });
    return { status: 200, ok: true, json: async () => answer };
  };
});

const stream = { operator: "stream", operand: 12 };

test("a narrow opens at its near message, the newest search result, or the first unread", () => {
  assert.equal(startAnchor([stream, { operator: "near", operand: 40 }]), 40);
  assert.equal(startAnchor([{ operator: "id", operand: 41 }]), 41);
  assert.equal(startAnchor([{ operator: "search", operand: "lunch" }]), "newest");
  assert.equal(startAnchor([stream]), "first_unread");
  assert.equal(startAnchor([]), "first_unread");
});

test("messages are asked for by anchor with the narrow as the server takes it", async () => {
  answer = { result: "success", messages: [{ id: 1 }], found_newest: true };
  const body = await fetchMessages([stream, { operator: "near", operand: 40 }], 40, 10, 20, false);
  assert.deepEqual(body.messages, [{ id: 1 }]);
  const [{ url, init }] = requests;
  assert.equal(init.method, "GET");
  assert.equal(url.pathname, "/json/messages");
  const query = Object.fromEntries(url.searchParams);
  assert.deepEqual(query, {
    anchor: "40",
    num_before: "10",
    num_after: "20",
    include_anchor: "false",
    narrow: JSON.stringify([stream, { operator: "near", operand: "40" }]),
    apply_markdown: "true",
    client_gravatar: "true",
  });
});

test("a refusal from the server is thrown with its message", async () => {
  globalThis.fetch = async () => ({ status: 400, ok: false, json: async () => ({ result: "error", msg: "Invalid narrow" }) });
  await assert.rejects(fetchMessages([], "newest", 1, 0), /Invalid narrow/);
});

test("a prefetched answer is taken once, and only for the same narrow", async () => {
  prefetchNarrow([stream]);
  assert.equal(requests.length, 1);
  const query = requests[0].url.searchParams;
  assert.equal(query.get("anchor"), "first_unread");
  assert.equal(query.get("num_before"), String(FIRST_BEFORE));
  assert.equal(query.get("num_after"), String(BATCH));
  assert.equal(takePrefetched([{ operator: "stream", operand: 13 }]), null);
  prefetchNarrow([stream]);
  const early = takePrefetched([{ operator: "stream", operand: 12 }]);
  assert.ok(early instanceof Promise);
  assert.deepEqual((await early).messages, []);
  assert.equal(takePrefetched([stream]), null);
});

test("the narrow of all messages matches every message without asking", async () => {
  const matches = await matching([], [3, 4]);
  assert.deepEqual([...matches], [
    [3, null],
    [4, null],
  ]);
  assert.equal(requests.length, 0);
});

test("other narrows ask the server which messages match", async () => {
  answer = { result: "success", messages: { 7: { match_content: "<p><span>hit</span></p>", match_subject: "t" } } };
  const narrow = [{ operator: "search", operand: "hit" }];
  const matches = await matching(narrow, [7, 8]);
  assert.deepEqual([...matches.keys()], [7]);
  assert.equal(matches.get(7).match_content, "<p><span>hit</span></p>");
  const query = requests[0].url.searchParams;
  assert.equal(requests[0].url.pathname, "/json/messages/matches_narrow");
  assert.equal(query.get("msg_ids"), "[7,8]");
  assert.equal(query.get("narrow"), JSON.stringify(narrow));
});
