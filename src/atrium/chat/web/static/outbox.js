// Messages not yet known to be sent. Each send goes through here with a `local_id`; until the
// server's answer (or its message event carrying that `local_id`) arrives, the message is kept
// in this browser's storage, so that a failed send, an expired session or a reload loses
// nothing. A send that failed shows "not sent" with Retry and Delete, as Zulip's web app does;
// nothing is resent by itself. A send whose answer was lost may still have reached the server:
// before a retry, the person's latest messages are checked for it, so Retry never duplicates.

import { ApiError, del, get, post } from "./api.js";
import { el } from "./dom.js";
import { conversationOf } from "./narrow.js";
import { bus, state, userName } from "./state.js";

const entries = new Map(); // local_id -> {localId, params, target, content, sentAt, status, error, unknown, draftId}
let counter = 0;
let loaded = false;

const storageKey = () => `atrium.outbox.${state.me}`;

function save() {
  try {
    if (entries.size) localStorage.setItem(storageKey(), JSON.stringify([...entries.values()]));
    else localStorage.removeItem(storageKey());
  } catch {
    // Storage full or refused (a private window): the messages stay for this page's life.
  }
}

function changed(entry, fresh = false) {
  save();
  bus.emit("outbox", { entry, fresh });
}

// The messages that this page had not seen answered, as the browser kept them. A send that was
// under way when the page went away may have arrived: it shows as not sent, and Retry checks.
export function loadOutbox() {
  if (loaded) return;
  loaded = true;
  let kept = [];
  try {
    kept = JSON.parse(localStorage.getItem(storageKey()) ?? "[]");
  } catch {
    kept = [];
  }
  for (const entry of kept) {
    if (entry.status === "sending") Object.assign(entry, { status: "failed", unknown: true, error: "Not sent" });
    entries.set(entry.localId, entry);
  }
  if (entries.size) bus.emit("outbox", { entry: null, fresh: false });
}

export function unsent() {
  return [...entries.values()];
}

function belongsTo(narrow, target) {
  if (!narrow.length) return true;
  const here = conversationOf(narrow);
  if (!here || here.type !== target.type) return false;
  if (target.type === "stream") return here.stream_id === target.stream_id && (!here.topic || here.topic.toLowerCase() === target.topic.toLowerCase());
  return [...here.user_ids].sort().join(",") === [...target.user_ids].sort().join(",");
}

export function unsentIn(narrow) {
  return unsent().filter((entry) => belongsTo(narrow, entry.target));
}

function delivered(localId) {
  const entry = entries.get(localId);
  if (!entry) return;
  entries.delete(localId);
  if (entry.draftId !== null && entry.draftId !== undefined) del(`/drafts/${entry.draftId}`).catch(() => {});
  changed(entry);
}

async function attempt(entry) {
  Object.assign(entry, { status: "sending", error: null });
  changed(entry, true);
  try {
    // The typing "stop" goes after the message (see compose.js), hence `onSettled`.
    await post("/messages", { ...entry.params, queue_id: state.queueId, local_id: entry.localId });
    delivered(entry.localId);
    return { sent: true };
  } catch (error) {
    if (!entries.has(entry.localId)) return { sent: true }; // its event came first
    const refused = error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 429;
    if (refused) {
      // The server answered no: nothing was sent, and the text goes back to the compose box.
      entries.delete(entry.localId);
      changed(entry);
      return { sent: false, refused: error };
    }
    // No answer: it may or may not have arrived.
    Object.assign(entry, { status: "failed", error: error.message, unknown: !(error instanceof ApiError) });
    changed(entry);
    if (!(error instanceof ApiError)) bus.emit("connection", "lost");
    return { sent: false, failed: error };
  }
}

export function sendMessage(params, target, content, draftId) {
  const entry = {
    localId: `${Date.now()}.${++counter}`,
    params,
    target,
    content,
    sentAt: Math.floor(Date.now() / 1000),
    status: "sending",
    error: null,
    unknown: false,
    draftId,
  };
  entries.set(entry.localId, entry);
  return attempt(entry);
}

function sameConversation(message, target) {
  if (target.type === "stream") return message.type === "stream" && message.stream_id === target.stream_id && message.subject === target.topic;
  if (message.type !== "private") return false;
  const others = message.display_recipient.map((r) => r.id).filter((id) => id !== state.me).sort().join(",");
  return others === target.user_ids.filter((id) => id !== state.me).sort().join(",");
}

// Whether a send whose answer was lost reached the server after all: its message is among the
// person's latest, in the same conversation, with the same text, no older than the send.
async function arrivedAnyway(entry) {
  const body = await get("/messages", {
    anchor: "newest",
    num_before: 50,
    num_after: 0,
    narrow: [{ operator: "sender", operand: state.me }],
    apply_markdown: false,
  });
  const claimed = new Set(unsent().map((e) => e.arrivedAs).filter(Boolean));
  const found = body.messages.find(
    (m) => !claimed.has(m.id) && m.timestamp >= entry.sentAt - 2 && m.content.trim() === entry.content.trim() && sameConversation(m, entry.target),
  );
  return found?.id ?? null;
}

export async function retry(localId) {
  const entry = entries.get(localId);
  if (!entry || entry.status === "sending") return;
  if (entry.unknown) {
    try {
      const id = await arrivedAnyway(entry);
      if (id !== null) {
        entry.arrivedAs = id;
        delivered(localId);
        return;
      }
    } catch (error) {
      Object.assign(entry, { error: error.message });
      changed(entry);
      return;
    }
  }
  const outcome = await attempt(entry);
  if (outcome.refused) bus.emit("outbox:refused", { entry, error: outcome.refused });
}

export function discard(localId) {
  const entry = entries.get(localId);
  if (!entry) return;
  entries.delete(localId);
  changed(entry);
}

// The node the feed shows for an unsent message.
export function unsentNode(entry) {
  const failed = entry.status === "failed";
  const where = entry.target.type === "stream" ? `#${state.streams.get(entry.target.stream_id)?.name ?? "?"} › ${entry.target.topic}` : entry.target.user_ids.map(userName).join(", ");
  const head = el(
    "div",
    { class: "message-head" },
    el("span", { class: "sender", text: userName(state.me) }),
    el("span", { class: "unsent-where", text: where }),
    el("span", { class: failed ? "not-sent" : "sending", text: failed ? "Not sent" : "sending…", title: entry.error ?? "" }),
  );
  if (failed)
    head.append(
      el("button", { type: "button", class: "text-button unsent-retry", text: "Retry", onclick: () => retry(entry.localId) }),
      el("button", { type: "button", class: "text-button unsent-delete", text: "Delete", onclick: () => discard(entry.localId) }),
    );
  return el(
    "article",
    { class: `message local-echo${failed ? " failed" : ""}`, "aria-label": failed ? "Message not sent" : "Message being sent", dataset: { localId: entry.localId } },
    head,
    el("div", { class: "message-content", text: entry.content }),
  );
}

bus.on("event:message", (event) => {
  if (event.local_message_id) delivered(event.local_message_id);
});
