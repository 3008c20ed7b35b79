// The Drafts and Scheduled messages views: lists from the state (kept current by the
// `drafts` and `scheduled_messages` events), shown in the centre instead of a feed.

import { del } from "./api.js";
import { clear, el, toast } from "./dom.js";
import { bus, state, userName } from "./state.js";
import { formatDateTime } from "./time.js";

let showing = null;

function recipientLabel(type, to, topic) {
  if (type === "stream") return `#${state.streams.get(to[0] ?? to)?.name ?? "?"} › ${topic}`;
  const ids = Array.isArray(to) ? to : [to];
  return "To " + ids.map(userName).join(", ");
}

function renderDrafts() {
  const feed = document.getElementById("feed");
  const drafts = [...state.drafts.values()].sort((a, b) => b.timestamp - a.timestamp);
  const list = el("ul", { class: "card-list", "aria-label": "Drafts" });
  for (const draft of drafts) {
    const conversation =
      draft.type === "stream" ? { type: "stream", stream_id: draft.to[0], topic: draft.topic } : { type: "private", user_ids: draft.to };
    list.append(
      el(
        "li",
        { class: "card draft", dataset: { draftId: String(draft.id) } },
        el("div", { class: "card-head", text: `${recipientLabel(draft.type, draft.to, draft.topic)} · ${formatDateTime(draft.timestamp)}` }),
        el("pre", { class: "card-body", text: draft.content }),
        el(
          "div",
          { class: "row" },
          el("button", { type: "button", class: "primary restore-draft", text: "Restore", onclick: () => bus.emit("compose:open", { conversation, draft }) }),
          el("button", { type: "button", text: "Delete", onclick: () => del(`/drafts/${draft.id}`).catch((e) => toast(e.message)) }),
        ),
      ),
    );
  }
  clear(feed).append(drafts.length ? list : el("p", { class: "feed-status", text: "No drafts." }));
}

function renderScheduled() {
  const feed = document.getElementById("feed");
  const messages = [...state.scheduled.values()].sort((a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp);
  const list = el("ul", { class: "card-list", "aria-label": "Scheduled messages" });
  for (const message of messages)
    list.append(
      el(
        "li",
        { class: `card scheduled${message.failed ? " failed" : ""}` },
        el("div", { class: "card-head", text: `${recipientLabel(message.type, message.to, message.topic)} · ${formatDateTime(message.scheduled_delivery_timestamp)}` }),
        el("pre", { class: "card-body", text: message.content }),
        el(
          "div",
          { class: "row" },
          el("button", {
            type: "button",
            text: "Cancel",
            onclick: () => del(`/scheduled_messages/${message.scheduled_message_id}`).catch((e) => toast(e.message)),
          }),
        ),
      ),
    );
  clear(feed).append(messages.length ? list : el("p", { class: "feed-status", text: "No scheduled messages." }));
}

export function showList(kind) {
  showing = kind;
  document.getElementById("narrow-bar").textContent = kind === "drafts" ? "Drafts" : "Scheduled messages";
  kind === "drafts" ? renderDrafts() : renderScheduled();
}

export function hideList() {
  showing = null;
}

export function initLists() {
  bus.on("event:drafts", () => showing === "drafts" && renderDrafts());
  bus.on("event:scheduled_messages", () => showing === "scheduled" && renderScheduled());
}

