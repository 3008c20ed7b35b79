// The left sidebar: the views (All messages, Mentions, Starred, Drafts, Scheduled), the
// streams (pinned first, muted dimmed) with unread counts and, for the open stream, its
// topics; the direct-message conversations. Stream and topic menus: mute, mark as read,
// stream settings.

import { get, post } from "./api.js";
import { clear, el, toast } from "./dom.js";
import { describe, toHash } from "./narrow.js";
import { openMenu } from "./overlay.js";
import { canInvite } from "./permissions.js";
import { bus, dmKey, state, topicKey, unreadCounts, userName } from "./state.js";

const MUTED = 1;
const UNSHOWN_EVENTS = new Set(["typing", "presence", "reaction", "user_status"]);
let openStream = null;
const topicsByStream = new Map(); // stream id -> [{name, max_id}]
let currentHash = "#all_messages";
let streamFilter = ""; // what the "Filter streams" box holds (`q` focuses it)

function count(n) {
  return n ? el("span", { class: "unread-count", "aria-label": `${n} unread`, text: String(n) }) : null;
}

function link(href, label, n, extra = {}) {
  return el(
    "a",
    { href, class: `nav-link${href === currentHash ? " active" : ""}`, "aria-current": href === currentHash ? "page" : undefined, ...extra },
    el("span", { class: "nav-label", text: label }),
    count(n),
  );
}

async function loadTopics(streamId) {
  if (!state.features.has("topics")) return render();
  try {
    const body = await get(`/users/me/${streamId}/topics`);
    topicsByStream.set(streamId, body.topics);
  } catch {
    topicsByStream.set(streamId, []);
  }
  render();
}

function topicList(streamId, counts) {
  const names = new Map();
  for (const topic of topicsByStream.get(streamId) ?? []) names.set(topic.name.toLowerCase(), topic.name);
  for (const entry of state.unread.values())
    if (entry.kind === "stream" && entry.stream_id === streamId && !names.has(entry.topic.toLowerCase())) names.set(entry.topic.toLowerCase(), entry.topic);
  const list = el("ul", { class: "topic-list", "aria-label": "Topics" });
  for (const name of [...names.values()].slice(0, 30)) {
    const muted = state.userTopics.get(topicKey(streamId, name)) === MUTED;
    const href = toHash([
      { operator: "stream", operand: streamId },
      { operator: "topic", operand: name },
    ]);
    list.append(
      el(
        "li",
        { class: muted ? "muted" : "" },
        link(href, name || "(no topic)", counts.topics.get(topicKey(streamId, name)) ?? 0),
        el("button", {
          type: "button",
          class: "icon-button row-menu",
          "aria-label": `Topic menu for ${name}`,
          text: "⋮",
          onclick: (event) => topicMenu(event.currentTarget, streamId, name, muted),
        }),
      ),
    );
  }
  return list;
}

function topicMenu(anchor, streamId, topic, muted) {
  openMenu(
    anchor,
    [
      {
        label: muted ? "Unmute topic" : "Mute topic",
        action: () =>
          post("/user_topics", { stream_id: streamId, topic, visibility_policy: muted ? 0 : MUTED }).catch((e) => toast(e.message)),
      },
      { label: "Mark topic as read", action: () => post("/mark_topic_as_read", { stream_id: streamId, topic_name: topic }).catch((e) => toast(e.message)) },
    ],
    "Topic menu",
  );
}

function streamMenu(anchor, sub) {
  openMenu(
    anchor,
    [
      {
        label: sub.is_muted ? "Unmute stream" : "Mute stream",
        action: () =>
          post("/users/me/subscriptions/properties", { subscription_data: [{ stream_id: sub.stream_id, property: "is_muted", value: !sub.is_muted }] }).catch((e) => toast(e.message)),
      },
      {
        label: sub.pin_to_top ? "Unpin stream" : "Pin stream to top",
        action: () =>
          post("/users/me/subscriptions/properties", { subscription_data: [{ stream_id: sub.stream_id, property: "pin_to_top", value: !sub.pin_to_top }] }).catch((e) => toast(e.message)),
      },
      { label: "Mark stream as read", action: () => post("/mark_stream_as_read", { stream_id: sub.stream_id }).catch((e) => toast(e.message)) },
      { label: "Stream settings", action: () => bus.emit("settings:open", { page: "streams", streamId: sub.stream_id }) },
    ],
    "Stream menu",
  );
}

function dmConversations(counts) {
  const seen = new Map();
  for (const conversation of [...state.recentDms].sort((a, b) => b.max_message_id - a.max_message_id)) {
    const key = dmKey(conversation.user_ids);
    if (!seen.has(key)) seen.set(key, conversation.user_ids.length ? conversation.user_ids : [state.me]);
  }
  for (const [key, n] of counts.dms) if (!seen.has(key) && n) seen.set(key, key.split(",").map(Number));
  const list = el("ul", { class: "dm-list", "aria-label": "Direct messages" });
  for (const [key, ids] of [...seen].slice(0, 20)) {
    const sorted = [...ids].sort((a, b) => a - b);
    list.append(el("li", {}, link(toHash([{ operator: "dm", operand: sorted }]), sorted.map(userName).join(", "), counts.dms.get(key) ?? 0)));
  }
  return list;
}

export function render() {
  const node = document.getElementById("left-sidebar");
  if (!state.me) return;
  const counts = unreadCounts();
  const views = el(
    "ul",
    { class: "view-list" },
    el("li", {}, link("#inbox", "Inbox", counts.total, { id: "nav-inbox" })),
    el("li", {}, link("#recent", "Recent conversations", 0, { id: "nav-recent" })),
    el("li", {}, link("#all_messages", "All messages", counts.total, { id: "nav-all" })),
    el("li", {}, link(toHash([{ operator: "is", operand: "mentioned" }]), "Mentions", counts.mentions, { id: "nav-mentions" })),
    el("li", {}, link(toHash([{ operator: "is", operand: "starred" }]), "Starred", state.starred.size, { id: "nav-starred" })),
    el("li", {}, link("#drafts", "Drafts", state.drafts.size, { id: "nav-drafts" })),
    el("li", {}, link("#scheduled", "Scheduled messages", state.scheduled.size, { id: "nav-scheduled" })),
  );
  const wanted = streamFilter.trim().toLowerCase();
  const subs = [...state.subs.values()]
    .filter((s) => !wanted || s.name.toLowerCase().includes(wanted))
    .sort((a, b) => (b.pin_to_top ? 1 : 0) - (a.pin_to_top ? 1 : 0) || a.name.localeCompare(b.name));
  const streams = el("ul", { class: "stream-list", "aria-label": "Streams" });
  for (const sub of subs) {
    const href = toHash([{ operator: "stream", operand: sub.stream_id }]);
    const item = el(
      "li",
      { class: `stream-item${sub.is_muted ? " muted" : ""}${sub.pin_to_top ? " pinned" : ""}`, dataset: { streamId: String(sub.stream_id) } },
      el(
        "div",
        { class: "stream-row" },
        el("span", { class: "swatch", "aria-hidden": "true", dataset: { color: sub.color ?? "" } }),
        link(href, (sub.invite_only ? "🔒 " : "") + sub.name, counts.streams.get(sub.stream_id) ?? 0),
        el("button", {
          type: "button",
          class: "icon-button row-menu",
          "aria-label": `Stream menu for ${sub.name}`,
          text: "⋮",
          onclick: (event) => streamMenu(event.currentTarget, sub),
        }),
      ),
    );
    if (openStream === sub.stream_id) item.append(topicList(sub.stream_id, counts));
    streams.append(item);
  }
  for (const swatch of streams.querySelectorAll(".swatch")) if (swatch.dataset.color) swatch.style.backgroundColor = swatch.dataset.color;
  // The sidebar is rebuilt on events; a reader typing in the filter keeps focus and caret.
  const typingInFilter = document.activeElement?.id === "sidebar-stream-filter";
  const caret = typingInFilter ? document.activeElement.selectionStart : null;
  const filterBox = streamFilterBox(subs);
  clear(node).append(
    el("h2", { class: "visually-hidden", text: "Views" }),
    views,
    el("h2", { class: "sidebar-heading" }, "Streams", el("button", { type: "button", class: "icon-button heading-action", id: "browse-streams", "aria-label": "Browse streams", text: "+", onclick: () => bus.emit("streams:browse") })),
    filterBox,
    streams,
    el("h2", { class: "sidebar-heading", text: "Direct messages" }),
    dmConversations(counts),
    canInvite() ? el("button", { type: "button", class: "link-button sidebar-action", id: "invite-people", text: "Invite people", onclick: () => bus.emit("invite:open") }) : null,
  );
  if (typingInFilter) {
    filterBox.focus();
    filterBox.setSelectionRange(caret, caret);
  }
  const total = counts.total;
  document.title = `${total ? `(${total}) ` : ""}${describe(currentNarrow)} - ${state.realm.realm_name ?? "Atrium"}`;
}

// Zulip's stream search: typing filters the list, Enter opens the first stream shown and Esc
// clears the filter and leaves it.
function streamFilterBox(shown) {
  const box = el("input", { type: "search", id: "sidebar-stream-filter", class: "stream-filter", placeholder: "Filter streams", "aria-label": "Filter streams", autocomplete: "off", value: streamFilter });
  box.addEventListener("input", () => {
    streamFilter = box.value;
    render();
  });
  box.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && shown.length) {
      event.preventDefault();
      streamFilter = "";
      location.hash = toHash([{ operator: "stream", operand: shown[0].stream_id }]);
    } else if (event.key === "Escape" && streamFilter) {
      streamFilter = "";
      render();
    }
  });
  return box;
}

export function focusStreamFilter() {
  document.body.classList.add("show-left");
  document.getElementById("sidebar-stream-filter")?.focus();
}

let currentNarrow = [];
let redrawPending = false;

// After an event the sidebar is redrawn once the next frame is shown: counting the unread
// messages and rebuilding the lists would otherwise come before the feed paints the message
// that arrived, and a burst of events redraws once. A hidden tab gets no frames, hence the timer.
function redrawSoon() {
  if (redrawPending) return;
  redrawPending = true;
  const redraw = () => {
    if (!redrawPending) return;
    redrawPending = false;
    render();
  };
  requestAnimationFrame(() => setTimeout(redraw));
  setTimeout(redraw, 250);
}

export function initLeftSidebar() {
  bus.on("state", render);
  bus.on("event", (event) => {
    // Nothing the sidebar shows changes with these, and typing notices come in bursts.
    if (UNSHOWN_EVENTS.has(event.type)) return;
    if (event.type === "message" && openStream !== null && event.message.stream_id === openStream) {
      const topics = topicsByStream.get(openStream) ?? [];
      if (!topics.some((t) => t.name.toLowerCase() === event.message.subject.toLowerCase())) topics.unshift({ name: event.message.subject, max_id: event.message.id });
      topicsByStream.set(openStream, topics);
    }
    if (event.type === "update_message" && openStream !== null) loadTopics(openStream);
    redrawSoon();
  });
  bus.on("location", ({ hash, narrow }) => {
    currentHash = hash;
    currentNarrow = narrow;
    const stream = narrow.find((t) => t.operator === "stream");
    const next = stream && typeof stream.operand === "number" ? stream.operand : null;
    if (next !== null && next !== openStream) {
      openStream = next;
      // After the feed has asked for its messages (main.js opens the narrow right after this
      // event): the server answers in turn, and the messages are what the reader waits for.
      queueMicrotask(() => loadTopics(next));
    } else if (next === null) openStream = null;
    render();
  });
}
