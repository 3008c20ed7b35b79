// The Recent conversations view: the latest conversations (stream topics and direct messages)
// with their last activity, participants and unread counts, filterable by text and by unread.
// Its list is built once from the newest messages and then kept current by the events.

import { get } from "./api.js";
import { clear, el } from "./dom.js";
import { toHash } from "./narrow.js";
import { dmKey, messageDmKey, state, topicKey, unreadCounts, userName } from "./state.js";
import { formatDateTime, formatTime } from "./time.js";

const FETCH = 400; // the newest messages the list starts from
const MAX_SENDERS = 4;

const conversations = new Map(); // key -> {key, type, stream_id, topic, user_ids, maxId, timestamp, senders}
let loaded = null; // the promise of the first load
const filter = { text: "", unreadOnly: false };

function keyOf(message) {
  return message.type === "stream" ? `s:${topicKey(message.stream_id, message.subject)}` : `d:${messageDmKey(message)}`;
}

export function noteMessage(message) {
  const key = keyOf(message);
  let conversation = conversations.get(key);
  if (!conversation) {
    conversation =
      message.type === "stream"
        ? { key, type: "stream", stream_id: message.stream_id, topic: message.subject, maxId: 0, timestamp: 0, senders: [] }
        : { key, type: "private", user_ids: message.display_recipient.map((r) => r.id), maxId: 0, timestamp: 0, senders: [] };
    conversations.set(key, conversation);
  }
  if (message.id > conversation.maxId) {
    conversation.maxId = message.id;
    conversation.timestamp = message.timestamp;
  }
  // The most recent senders first.
  conversation.senders = [message.sender_id, ...conversation.senders.filter((id) => id !== message.sender_id)];
}

export function loadRecent() {
  loaded ??= get("/messages", { anchor: "newest", num_before: FETCH, num_after: 0, narrow: [], apply_markdown: false, client_gravatar: true })
    .then((body) => {
      // Oldest first, so that each conversation's senders end newest first.
      for (const message of body.messages) noteMessage(message);
    })
    .catch((error) => {
      loaded = null;
      throw error;
    });
  return loaded;
}

// After a reconnect the list is rebuilt from the server's newest messages.
export function forgetRecent() {
  conversations.clear();
  loaded = null;
}

function unreadOf(conversation, counts) {
  if (conversation.type === "stream") return counts.topics.get(topicKey(conversation.stream_id, conversation.topic)) ?? 0;
  return counts.dms.get(dmKey(conversation.user_ids)) ?? 0;
}

function labels(conversation) {
  if (conversation.type === "stream") {
    const stream = state.streams.get(conversation.stream_id)?.name ?? "?";
    return { where: stream, what: conversation.topic || "(no topic)", href: toHash([{ operator: "stream", operand: conversation.stream_id }, { operator: "topic", operand: conversation.topic }]) };
  }
  const others = conversation.user_ids.filter((id) => id !== state.me);
  const ids = [...(others.length ? others : [state.me])].sort((a, b) => a - b);
  return { where: "Direct messages", what: ids.map(userName).join(", "), href: toHash([{ operator: "dm", operand: ids }]) };
}

function when(seconds) {
  const today = new Date().toDateString() === new Date(seconds * 1000).toDateString();
  return today ? formatTime(seconds) : formatDateTime(seconds);
}

function table(counts) {
  const words = filter.text.trim().toLowerCase();
  const body = el("tbody");
  const rows = [...conversations.values()].sort((a, b) => b.maxId - a.maxId);
  for (const conversation of rows) {
    const unread = unreadOf(conversation, counts);
    if (filter.unreadOnly && !unread) continue;
    const { where, what, href } = labels(conversation);
    const people = conversation.senders.slice(0, MAX_SENDERS).map(userName);
    if (words && ![where, what, ...people].some((text) => text.toLowerCase().includes(words))) continue;
    body.append(
      el(
        "tr",
        { class: `recent-row${unread ? " unread" : ""}`, dataset: { key: conversation.key } },
        el("td", { class: "recent-where", text: where }),
        el("td", { class: "recent-what" }, el("a", { href, text: what })),
        el("td", { class: "recent-unread" }, unread ? el("span", { class: "unread-count", "aria-label": `${unread} unread`, text: String(unread) }) : ""),
        el("td", { class: "recent-people", text: people.join(", ") }),
        el("td", { class: "recent-time" }, el("time", { datetime: new Date(conversation.timestamp * 1000).toISOString(), text: when(conversation.timestamp) })),
      ),
    );
  }
  if (!body.children.length) return el("p", { class: "feed-status", text: conversations.size ? "No conversations match." : "No conversations yet." });
  return el(
    "table",
    { class: "recent-table", "aria-label": "Recent conversations" },
    el("thead", {}, el("tr", {}, ...["Stream", "Topic", "Unread", "Participants", "Last activity"].map((h) => el("th", { scope: "col", text: h })))),
    body,
  );
}

export function renderRecent(container, rerender, header) {
  const search = el("input", { type: "search", id: "recent-filter", placeholder: "Filter conversations", "aria-label": "Filter conversations", value: filter.text });
  search.addEventListener("input", () => {
    filter.text = search.value;
    results.replaceChildren(table(unreadCounts()));
  });
  const unreadOnly = el("input", { type: "checkbox", id: "recent-unread-only", checked: filter.unreadOnly });
  unreadOnly.addEventListener("change", () => {
    filter.unreadOnly = unreadOnly.checked;
    results.replaceChildren(table(unreadCounts()));
  });
  const filters = el("div", { class: "recent-filters" }, search, el("label", { for: "recent-unread-only" }, unreadOnly, " Unread only"));
  const results = el("div", { class: "recent-results" });
  const focused = document.activeElement?.id === "recent-filter";
  clear(container).append(header, filters, results);
  if (focused) search.focus();
  if (!loaded) {
    results.append(el("p", { class: "feed-status", text: "Loading…" }));
    loadRecent().then(rerender, (error) => results.replaceChildren(el("p", { class: "feed-status error", role: "alert", text: error.message })));
    return;
  }
  results.append(table(unreadCounts()));
}
