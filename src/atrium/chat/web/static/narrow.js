// Narrows: Zulip's list of {operator, operand} terms, to and from the search box and the URL
// hash (`#narrow/stream/12-general/topic/lunch`, Zulip's link format). Stream operands are ids,
// DM operands are lists of user ids, so that renames never break a view.

import { state, userName } from "./state.js";

export const ALL = [];

export function encodeHashComponent(text) {
  return encodeURIComponent(text).replace(/[%().]/g, (c) => ({ "%": ".", "(": ".28", ")": ".29", ".": ".2E" })[c]);
}

export function decodeHashComponent(text) {
  try {
    return decodeURIComponent(text.replace(/\./g, "%"));
  } catch {
    return text;
  }
}

function streamSlug(id) {
  const name = state.streams.get(id)?.name ?? "";
  return `${id}-${name.replace(/[^\w]+/g, "-")}`;
}

function userSlug(id) {
  const name = state.users.get(id)?.full_name ?? "";
  return encodeHashComponent(`${id}-${name.replace(/[^\w]+/g, "-")}`);
}

export function toHash(narrow) {
  if (!narrow.length) return "#all_messages";
  const parts = ["#narrow"];
  for (const { operator, operand, negated } of narrow) {
    const op = (negated ? "-" : "") + operator;
    if (operator === "stream" && typeof operand === "number") parts.push(op, streamSlug(operand));
    else if (operator === "dm") parts.push(op, operand.join(",") + "-dm");
    else if (operator === "sender" && typeof operand === "number") parts.push(op, userSlug(operand));
    else parts.push(op, encodeHashComponent(String(operand)));
  }
  return parts.join("/");
}

export function fromHash(hash) {
  if (!hash.startsWith("#narrow/")) return [];
  const parts = hash.slice("#narrow/".length).split("/");
  const narrow = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    let operator = parts[i];
    const negated = operator.startsWith("-");
    if (negated) operator = operator.slice(1);
    let operand = decodeHashComponent(parts[i + 1]);
    if (operator === "stream") {
      const id = parseInt(operand, 10);
      if (!Number.isNaN(id)) operand = id;
    } else if (operator === "dm") {
      operand = operand.replace(/-.*$/, "").split(",").map(Number).filter((n) => !Number.isNaN(n));
    } else if (operator === "near" || operator === "id") {
      const id = parseInt(operand, 10);
      if (!Number.isNaN(id)) operand = id;
    } else if (operator === "sender") {
      // Zulip's `sender/8-Olivia-Owner` (an id and a slug), or an email as typed.
      const id = /^(\d+)(-[^@]*)?$/.exec(operand);
      if (id) operand = Number(id[1]);
    }
    narrow.push(negated ? { operator, operand, negated } : { operator, operand });
  }
  return narrow;
}

function streamIdByName(name) {
  for (const stream of state.streams.values()) if (stream.name.toLowerCase() === name.toLowerCase()) return stream.stream_id;
  return name;
}

function userIdByEmail(email) {
  for (const user of state.users.values()) if (user.email.toLowerCase() === email.toLowerCase()) return user.user_id;
  return null;
}

// "stream:general topic:"lunch plans" is:starred -has:link free text"
export function parseSearch(text) {
  const narrow = [];
  const words = [];
  const pattern = /(-?)([a-z-]+):("([^"]*)"|\S+)|"([^"]*)"|(\S+)/gi;
  for (const match of text.matchAll(pattern)) {
    if (match[2]) {
      const negated = match[1] === "-";
      const operator = match[2].toLowerCase().replace(/^subject$/, "topic").replace(/^pm-with$/, "dm");
      let operand = match[4] ?? match[3];
      if (operator === "stream") operand = streamIdByName(operand);
      if (operator === "dm") {
        const ids = operand.split(",").map((e) => userIdByEmail(e.trim()));
        operand = ids.every((id) => id !== null) ? ids : operand;
      }
      if (operator === "sender" && operand !== "me") operand = userIdByEmail(operand) ?? operand;
      if (operator === "near" || operator === "id") operand = Number(operand);
      narrow.push(negated ? { operator, operand, negated: true } : { operator, operand });
    } else words.push(match[5] ?? match[6]);
  }
  if (words.length) narrow.push({ operator: "search", operand: words.join(" ") });
  return narrow;
}

export function toSearchText(narrow) {
  return narrow
    .map(({ operator, operand, negated }) => {
      let text = operand;
      if (operator === "stream") text = state.streams.get(operand)?.name ?? operand;
      else if (operator === "dm") text = operand.map((id) => state.users.get(id)?.email ?? id).join(",");
      else if (operator === "sender") text = state.users.get(operand)?.email ?? operand;
      if (operator === "search") return String(text);
      text = String(text);
      if (/\s/.test(text)) text = `"${text}"`;
      return `${negated ? "-" : ""}${operator}:${text}`;
    })
    .join(" ");
}

export function forServer(narrow) {
  // The API takes `near`'s message id as a string (the client keeps it as a number).
  return narrow.map(({ operator, operand, negated }) => {
    const value = operator === "near" ? String(operand) : operand;
    return negated ? { operator, operand: value, negated } : { operator, operand: value };
  });
}

export function describe(narrow) {
  if (!narrow.length) return "All messages";
  const stream = narrow.find((t) => t.operator === "stream");
  const topic = narrow.find((t) => t.operator === "topic");
  const dm = narrow.find((t) => t.operator === "dm");
  const is = narrow.find((t) => t.operator === "is");
  if (narrow.length <= 2 && stream) {
    const name = "#" + (state.streams.get(stream.operand)?.name ?? stream.operand);
    return topic ? `${name} > ${topic.operand}` : name;
  }
  if (narrow.length === 1 && dm) return dm.operand.map(userName).join(", ");
  if (narrow.length === 1 && is?.operand === "starred") return "Starred messages";
  if (narrow.length === 1 && is?.operand === "mentioned") return "Mentions";
  if (narrow.length === 1 && is && ["dm", "private"].includes(is.operand)) return "Direct messages";
  return "Search: " + toSearchText(narrow);
}

export function conversationOf(narrow) {
  // What the compose box should address in this narrow, if it is one conversation.
  const stream = narrow.find((t) => t.operator === "stream" && !t.negated);
  const topic = narrow.find((t) => t.operator === "topic" && !t.negated);
  const dm = narrow.find((t) => t.operator === "dm" && !t.negated);
  if (stream && typeof stream.operand === "number") return { type: "stream", stream_id: stream.operand, topic: topic?.operand ?? "" };
  if (dm && Array.isArray(dm.operand)) return { type: "private", user_ids: dm.operand };
  return null;
}

export function sameNarrow(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

const ASCII = /^[\x00-\x7f]*$/;

// Whether a new message belongs to `narrow`, when that takes no rule of the server's: a stream
// (by id) and a topic (case-insensitive, as the server compares ASCII case) are plain equality,
// which Zulip's web app also checks locally; `near` moves the anchor only. Anything else (search, flags, DMs, negations, a
// non-ASCII topic) is undefined: ask the server (GET /messages/matches_narrow).
export function matchesLocally(narrow, message) {
  let matches = true;
  for (const { operator, operand, negated } of narrow) {
    if (negated) return undefined;
    if (operator === "near") continue; // it moves the anchor only, as on the server
    if (operator === "stream" && typeof operand === "number") matches &&= message.type === "stream" && message.stream_id === operand;
    else if (operator === "topic" && typeof operand === "string") {
      const topic = message.subject ?? "";
      if (topic !== operand && !(ASCII.test(topic) && ASCII.test(operand))) return undefined;
      matches &&= message.type === "stream" && topic.toLowerCase() === operand.toLowerCase();
    } else return undefined;
  }
  return matches;
}
