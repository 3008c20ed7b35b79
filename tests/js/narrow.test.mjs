// Narrows to and from the URL hash and the search box, and the local check of new messages.

import assert from "node:assert/strict";
import { before, test } from "node:test";

import {
  conversationOf,
  decodeHashComponent,
  encodeHashComponent,
  forServer,
  fromHash,
  matchesLocally,
  parseSearch,
  toHash,
  toSearchText,
} from "../../src/atrium/chat/web/static/narrow.js";
import { loadState } from "../../src/atrium/chat/web/static/state.js";

before(() => {
  loadState({
    user_id: 1,
    streams: [{ stream_id: 12, name: "general chat" }],
    realm_users: [
      { user_id: 1, email: "me@example.test", full_name: "Me" },
      { user_id: 2, email: "ann@example.test", full_name: "Ann" },
    ],
  });
});

test("hash components use Zulip's dot encoding and decode back", () => {
  assert.equal(encodeHashComponent("lunch (v2). 50%"), "lunch.20.28v2.29.2E.2050.25");
  assert.equal(decodeHashComponent(encodeHashComponent("lunch (v2). 50%")), "lunch (v2). 50%");
  assert.equal(decodeHashComponent(".zz"), ".zz");
});

test("a narrow goes to the hash and comes back the same", () => {
  const narrow = [
    { operator: "stream", operand: 12 },
    { operator: "topic", operand: "lunch plans" },
    { operator: "near", operand: 40 },
  ];
  const hash = toHash(narrow);
  assert.equal(hash, "#narrow/stream/12-general-chat/topic/lunch.20plans/near/40");
  assert.deepEqual(fromHash(hash), narrow);
  assert.equal(toHash([]), "#all_messages");
  assert.deepEqual(fromHash("#all_messages"), []);
});

test("direct-message and negated terms survive the hash", () => {
  const narrow = [{ operator: "dm", operand: [2, 3] }, { operator: "is", operand: "starred", negated: true }];
  assert.equal(toHash(narrow), "#narrow/dm/2,3-dm/-is/starred");
  assert.deepEqual(fromHash(toHash(narrow)), narrow);
});

test("search text becomes terms with ids, and back", () => {
  const narrow = parseSearch('stream:"general chat" topic:"lunch plans" -is:starred dm:ann@example.test some words');
  assert.deepEqual(narrow, [
    { operator: "stream", operand: 12 },
    { operator: "topic", operand: "lunch plans" },
    { operator: "is", operand: "starred", negated: true },
    { operator: "dm", operand: [2] },
    { operator: "search", operand: "some words" },
  ]);
  assert.equal(toSearchText(narrow), 'stream:"general chat" topic:"lunch plans" -is:starred dm:ann@example.test some words');
});

test("the server gets near's id as a string", () => {
  assert.deepEqual(forServer([{ operator: "near", operand: 5 }, { operator: "stream", operand: 12, negated: true }]), [
    { operator: "near", operand: "5" },
    { operator: "stream", operand: 12, negated: true },
  ]);
});

test("the compose box addresses a stream topic or a direct conversation", () => {
  assert.deepEqual(conversationOf([{ operator: "stream", operand: 12 }]), { type: "stream", stream_id: 12, topic: "" });
  assert.deepEqual(conversationOf([{ operator: "dm", operand: [2] }]), { type: "private", user_ids: [2] });
  assert.equal(conversationOf([{ operator: "search", operand: "x" }]), null);
});

test("stream and ASCII topic narrows are decided locally; anything else asks the server", () => {
  const message = { type: "stream", stream_id: 12, subject: "Lunch" };
  const topic = [{ operator: "stream", operand: 12 }, { operator: "topic", operand: "lunch" }];
  assert.equal(matchesLocally(topic, message), true);
  assert.equal(matchesLocally([{ operator: "stream", operand: 13 }], message), false);
  assert.equal(matchesLocally([...topic, { operator: "near", operand: 3 }], message), true);
  assert.equal(matchesLocally([{ operator: "topic", operand: "déjà" }], { ...message, subject: "DÉJÀ" }), undefined);
  assert.equal(matchesLocally([{ operator: "stream", operand: 12, negated: true }], message), undefined);
  assert.equal(matchesLocally([{ operator: "search", operand: "x" }], message), undefined);
});
