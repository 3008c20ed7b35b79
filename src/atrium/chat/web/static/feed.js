// The message feed of one narrow: fetched by anchors from GET /messages (older history as the
// user scrolls up), grouped under recipient bars, kept current by the events, and marked read
// as messages are seen. Message bodies are the server's rendered, sanitized HTML. The feed
// holds a bounded window of messages: loading one end drops the far end, which is fetched again
// by anchor when the reader scrolls back to it, so long histories keep the DOM small.

import { markAlertWords } from "./alert_words.js";
import { get, post } from "./api.js";
import { avatar, clear, el, setServerHtml, showEmoji, toast } from "./dom.js";
import { openActions, reactionButtons } from "./message_actions.js";
import { ALL, describe, forServer, matchesLocally, sameNarrow, toHash } from "./narrow.js";
import { bus, messageDmKey, state, userName } from "./state.js";
import { formatDateTime, formatTime, isoTime } from "./time.js";

const BATCH = 50;
const FIRST_BEFORE = 100; // a narrow opens with this much history above its anchor (two screens)
const WINDOW = 400; // messages kept in the feed (and the DOM) at most
const feedNode = () => document.getElementById("feed");

export const feed = {
  narrow: ALL,
  messages: [],
  byId: new Map(),
  foundOldest: false,
  foundNewest: false,
  selectedId: null,
  loading: false,
  token: 0,
};

// --- fetching ---------------------------------------------------------------------------

async function fetchMessages(anchor, before, after, includeAnchor = true, narrow = feed.narrow) {
  return get("/messages", {
    anchor: String(anchor),
    num_before: before,
    num_after: after,
    include_anchor: includeAnchor,
    narrow: forServer(narrow),
    apply_markdown: true,
    client_gravatar: true,
  });
}

function startAnchor(narrow) {
  const near = narrow.find((t) => t.operator === "near" || t.operator === "id");
  const searching = narrow.some((t) => t.operator === "search");
  return near?.operand ?? (searching ? "newest" : "first_unread");
}

// The first narrow's messages, asked for while POST /register is still under way (main.js):
// the feed then waits for the slower of the two, not for both in turn.
let prefetched = null;

export function prefetchNarrow(narrow) {
  const promise = fetchMessages(startAnchor(narrow), FIRST_BEFORE, BATCH, true, narrow);
  promise.catch(() => {}); // openNarrow reports a failure when it takes the answer
  prefetched = { narrow, promise };
}

// A prefetched answer may have been read before the event queue existed, so a message sent in
// between reached neither; the register response's max_message_id (read after the queue was
// made) tells whether to ask for what came after the feed's last message.
async function catchUp(token) {
  const last = feed.messages[feed.messages.length - 1];
  if (!feed.foundNewest || state.maxMessageId <= (last?.id ?? 0)) return;
  const body = await fetchMessages(last?.id ?? 0, 0, BATCH, false);
  if (token !== feed.token || !body.messages.length) return;
  feed.foundNewest = body.found_newest;
  addMessages(body.messages);
  trim("newest");
  render({ keepScroll: true });
}

function addMessages(messages) {
  for (const message of messages) {
    if (feed.byId.has(message.id)) Object.assign(feed.byId.get(message.id), message);
    else {
      feed.byId.set(message.id, message);
      feed.messages.push(message);
    }
  }
  feed.messages.sort((a, b) => a.id - b.id);
}

function trim(keep) {
  // Keep the WINDOW messages at the `keep` end ("oldest" or "newest"); the other end is
  // no longer known to be complete, so scrolling there fetches it again.
  const extra = feed.messages.length - WINDOW;
  if (extra <= 0) return;
  const dropped = keep === "oldest" ? feed.messages.splice(WINDOW) : feed.messages.splice(0, extra);
  for (const message of dropped) feed.byId.delete(message.id);
  if (keep === "oldest") feed.foundNewest = false;
  else feed.foundOldest = false;
}

export async function openNarrow(narrow, { anchor } = {}) {
  const token = ++feed.token;
  feed.narrow = narrow;
  feed.messages = [];
  feed.byId = new Map();
  feed.selectedId = null;
  feed.foundOldest = feed.foundNewest = false;
  const node = feedNode();
  clear(node).append(el("p", { class: "feed-status", text: "Loading…" }));
  document.getElementById("narrow-bar").textContent = describe(narrow);
  const start = anchor ?? startAnchor(narrow);
  const early = anchor === undefined && prefetched && sameNarrow(prefetched.narrow, narrow) ? prefetched.promise : null;
  prefetched = null;
  let body;
  try {
    body = await (early ?? fetchMessages(start, FIRST_BEFORE, BATCH));
  } catch (error) {
    if (token === feed.token) clear(node).append(el("p", { class: "feed-status error", role: "alert", text: error.message }));
    return;
  }
  if (token !== feed.token) return;
  feed.foundOldest = body.found_oldest;
  feed.foundNewest = body.found_newest;
  addMessages(body.messages);
  render();
  const target = feed.byId.get(body.anchor) ?? feed.messages[feed.messages.length - 1];
  if (target) select(target.id, { block: feed.byId.has(body.anchor) && start !== "newest" ? "start" : "end" });
  bus.emit("feed:opened", narrow);
  if (early) catchUp(token).catch(() => {});
}

async function loadOlder() {
  if (feed.loading || feed.foundOldest || !feed.messages.length) return;
  feed.loading = true;
  const token = feed.token;
  try {
    const body = await fetchMessages(feed.messages[0].id, BATCH, 0, false);
    if (token !== feed.token) return;
    feed.foundOldest = body.found_oldest;
    addMessages(body.messages);
    trim("oldest");
    render({ keepScroll: true });
  } finally {
    feed.loading = false;
  }
}

async function loadNewer() {
  if (feed.loading || feed.foundNewest || !feed.messages.length) return;
  feed.loading = true;
  const token = feed.token;
  try {
    const body = await fetchMessages(feed.messages[feed.messages.length - 1].id, 0, BATCH, false);
    if (token !== feed.token) return;
    feed.foundNewest = body.found_newest;
    addMessages(body.messages);
    trim("newest");
    render({ keepScroll: true });
  } finally {
    feed.loading = false;
  }
}

// --- rendering --------------------------------------------------------------------------

function recipientKey(message) {
  return message.type === "stream" ? `s:${message.stream_id}:${message.subject.toLowerCase()}` : `d:${messageDmKey(message)}`;
}

function recipientBar(message) {
  if (message.type === "stream") {
    const stream = state.streams.get(message.stream_id);
    const streamName = stream?.name ?? message.display_recipient;
    return el(
      "div",
      { class: "recipient-bar stream-bar", role: "heading", "aria-level": "2" },
      el("a", { class: "bar-stream", href: toHash([{ operator: "stream", operand: message.stream_id }]), text: "#" + streamName }),
      el("span", { class: "bar-sep", "aria-hidden": "true", text: " › " }),
      el("a", {
        class: "bar-topic",
        href: toHash([
          { operator: "stream", operand: message.stream_id },
          { operator: "topic", operand: message.subject },
        ]),
        text: message.subject || "(no topic)",
      }),
    );
  }
  const ids = message.display_recipient.map((r) => r.id).filter((id) => id !== state.me);
  const names = message.display_recipient.filter((r) => r.id !== state.me).map((r) => r.full_name);
  return el(
    "div",
    { class: "recipient-bar dm-bar", role: "heading", "aria-level": "2" },
    el("a", {
      href: toHash([{ operator: "dm", operand: ids.length ? ids.sort((a, b) => a - b) : [state.me] }]),
      text: "You and " + (names.length ? names.join(", ") : "yourself"),
    }),
  );
}

function editMarker(message) {
  if (!message.last_edit_timestamp) return null;
  const history = message.edit_history ?? [];
  const edited = history.length === 0 || history.some((h) => h.prev_content !== undefined || h.prev_rendered_content !== undefined);
  const label = edited ? "edited" : "moved";
  return el("span", { class: "edit-marker", title: `${label} ${formatDateTime(message.last_edit_timestamp)}`, text: label.toUpperCase() });
}

export function messageNode(message, continued) {
  const flags = message.flags ?? [];
  const starred = flags.includes("starred");
  const unread = !flags.includes("read") && message.sender_id !== state.me;
  const content = el("div", { class: "message-content rendered" });
  setServerHtml(content, message.match_content ?? message.content);
  showEmoji(content);
  markAlertWords(content, message);
  const node = el(
    "article",
    {
      class: `message${continued ? " continued" : ""}${unread ? " unread" : ""}${flags.includes("mentioned") ? " mentioned" : ""}`,
      tabindex: "-1",
      "aria-label": `Message from ${message.sender_full_name}`,
      dataset: { id: String(message.id) },
    },
    avatar(message.avatar_url, message.sender_full_name),
    el(
      "div",
      { class: "message-head" },
      el("button", { type: "button", class: "sender link-button", text: message.sender_full_name, dataset: { userId: String(message.sender_id) } }),
      el("time", { datetime: isoTime(message.timestamp), title: formatDateTime(message.timestamp), text: formatTime(message.timestamp) }),
      editMarker(message),
      el("button", {
        type: "button",
        class: `star${starred ? " starred" : ""}`,
        "aria-pressed": starred ? "true" : "false",
        "aria-label": starred ? "Unstar this message" : "Star this message",
        text: starred ? "★" : "☆",
      }),
      el("button", { type: "button", class: "actions-button", "aria-haspopup": "menu", "aria-label": "Message actions", text: "⋯" }),
    ),
    content,
    reactionButtons(message),
  );
  if (message.id === feed.selectedId) node.classList.add("selected");
  return node;
}

// A message's nodes when it follows `previous` in the feed: a recipient bar if the
// conversation changes, and the message (shown as a continuation of the same sender's).
function nodesAfter(previous, message) {
  const newGroup = !previous || recipientKey(previous) !== recipientKey(message);
  const continued = !newGroup && previous.sender_id === message.sender_id && message.timestamp - previous.timestamp < 600;
  const article = messageNode(message, continued);
  return newGroup ? [recipientBar(message), article] : [article];
}

// A new message after the last one: its nodes are added at the end (before any local echoes)
// instead of rendering the whole feed again.
function append(previous, message) {
  const node = feedNode();
  const nodes = nodesAfter(previous, message);
  const article = nodes[nodes.length - 1];
  const fragment = document.createDocumentFragment();
  fragment.append(...nodes);
  node.insertBefore(fragment, node.querySelector("article.local-echo"));
  if (article.classList.contains("unread")) observer?.observe(article);
}

let observer = null;

function observe(root) {
  observer?.disconnect();
  observer = new IntersectionObserver(onVisible, { root: feedNode(), threshold: 0.5 });
  for (const node of root.querySelectorAll("article.message.unread")) observer.observe(node);
}

// The message at the top of the view and how far below the feed's top edge it is: after a
// render (which may have added or dropped messages above it) the view is put back there.
function viewAnchor(node) {
  const top = node.getBoundingClientRect().top;
  for (const article of node.querySelectorAll("article.message[data-id]")) {
    const rect = article.getBoundingClientRect();
    if (rect.bottom > top) return { id: article.dataset.id, offset: rect.top - top };
  }
  return null;
}

// Messages are skipped by the browser until near the view (app.css); ones drawn for the first
// time right after a render would change height above the reader's place, so a render that
// keeps the place draws them all, for two frames, long enough for their heights to be kept.
let settled = 0;

function settle(node) {
  node.classList.add("settling");
  const mine = ++settled;
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      if (mine === settled) node.classList.remove("settling");
    }),
  );
}

export function render({ keepScroll = false } = {}) {
  const node = feedNode();
  const scroll = node.scrollTop;
  const anchor = keepScroll ? viewAnchor(node) : null;
  const fragment = document.createDocumentFragment();
  let previous = null;
  if (feed.foundOldest && feed.messages.length) fragment.append(el("p", { class: "feed-edge", text: "Beginning of this conversation" }));
  for (const message of feed.messages) {
    fragment.append(...nodesAfter(previous, message));
    previous = message;
  }
  if (!feed.messages.length) fragment.append(el("p", { class: "feed-status", text: "No messages here yet." }));
  for (const echo of pendingEchoes.values()) fragment.append(echo);
  clear(node).append(fragment);
  if (keepScroll) {
    settle(node);
    const target = anchor && node.querySelector(`article.message[data-id="${anchor.id}"]`);
    if (target) node.scrollTop += target.getBoundingClientRect().top - node.getBoundingClientRect().top - anchor.offset;
    else node.scrollTop = scroll;
  }
  observe(node);
}

// --- selection and reading --------------------------------------------------------------

export function select(id, { block = "nearest" } = {}) {
  const node = feedNode();
  node.querySelector("article.message.selected")?.classList.remove("selected");
  feed.selectedId = id;
  const target = node.querySelector(`article.message[data-id="${id}"]`);
  if (!target) return;
  target.classList.add("selected");
  reveal(target);
  target.scrollIntoView({ block });
}

// Messages skipped by the browser have a guessed height until drawn (app.css), so scrolling to a
// message first draws it and about a screen of messages on each side, for two frames: placed
// among real heights, the message stays where it was put, and those messages keep their heights.
const REVEAL = 35;

function reveal(target) {
  const nodes = [target];
  for (const step of ["previousElementSibling", "nextElementSibling"]) {
    let count = 0;
    for (let node = target[step]; node && count < REVEAL; node = node[step])
      if (node.matches("article.message")) {
        nodes.push(node);
        count += 1;
      }
  }
  for (const node of nodes) node.classList.add("drawn");
  requestAnimationFrame(() => requestAnimationFrame(() => nodes.forEach((node) => node.classList.remove("drawn"))));
}

export function selectedMessage() {
  return feed.byId.get(feed.selectedId) ?? null;
}

export function moveSelection(step) {
  if (!feed.messages.length) return;
  const index = feed.messages.findIndex((m) => m.id === feed.selectedId);
  const next = Math.max(0, Math.min(feed.messages.length - 1, (index < 0 ? feed.messages.length - 1 : index) + step));
  select(feed.messages[next].id);
  const target = feedNode().querySelector(`article.message[data-id="${feed.messages[next].id}"]`);
  target?.focus({ preventScroll: true });
  if (next === 0) loadOlder();
  if (next === feed.messages.length - 1) loadNewer();
}

const toMarkRead = new Set();
let readTimer = null;

function onVisible(entries) {
  if (document.visibilityState !== "visible") return;
  for (const entry of entries) {
    if (!entry.isIntersecting) continue;
    const id = Number(entry.target.dataset.id);
    const message = feed.byId.get(id);
    if (message && !(message.flags ?? []).includes("read")) toMarkRead.add(id);
    observer?.unobserve(entry.target);
  }
  if (toMarkRead.size && !readTimer) readTimer = setTimeout(flushRead, 250);
}

async function flushRead() {
  readTimer = null;
  const ids = [...toMarkRead];
  toMarkRead.clear();
  if (!ids.length) return;
  try {
    await post("/messages/flags", { messages: ids, op: "add", flag: "read" });
  } catch (error) {
    for (const id of ids) toMarkRead.add(id);
    readTimer = setTimeout(flushRead, 5000);
  }
}

// --- local echo -------------------------------------------------------------------------

const pendingEchoes = new Map(); // local_id -> node

bus.on("compose:echo", ({ localId, content, failed }) => {
  let node = pendingEchoes.get(localId);
  if (failed) {
    node?.classList.add("failed");
    node?.setAttribute("title", failed);
    return;
  }
  node = el(
    "article",
    { class: "message local-echo", "aria-label": "Message being sent", dataset: { localId } },
    el("div", { class: "message-head" }, el("span", { class: "sender", text: userName(state.me) }), el("span", { class: "sending", text: "sending…" })),
    el("div", { class: "message-content", text: content }),
  );
  pendingEchoes.set(localId, node);
  feedNode().append(node);
  node.scrollIntoView({ block: "end" });
});

// --- live updates -----------------------------------------------------------------------

async function matching(ids) {
  if (!feed.narrow.length) return new Map(ids.map((id) => [id, null]));
  const body = await get("/messages/matches_narrow", { msg_ids: ids, narrow: forServer(feed.narrow) });
  return new Map(Object.entries(body.messages).map(([id, match]) => [Number(id), match]));
}

// Whether a new message is shown in the narrow in view (desktop notifications skip those).
export async function inView(id) {
  if (!feed.foundNewest) return false;
  try {
    return (await matching([id])).has(id);
  } catch {
    return false;
  }
}

function nearBottom() {
  const node = feedNode();
  return node.scrollHeight - node.scrollTop - node.clientHeight < 150;
}

bus.on("event:message", async (event) => {
  const message = event.message;
  const echo = event.local_message_id && pendingEchoes.get(event.local_message_id);
  if (echo) {
    echo.remove();
    pendingEchoes.delete(event.local_message_id);
  }
  if (!feed.foundNewest) return;
  const token = feed.token;
  // A stream or topic narrow decides here, without a round trip to the server.
  const local = feed.narrow.length ? matchesLocally(feed.narrow, message) : true;
  const matches = local === undefined ? await matching([message.id]) : new Map(local ? [[message.id, null]] : []);
  if (token !== feed.token || !matches.has(message.id)) return;
  const match = matches.get(message.id);
  if (match?.match_content) message.match_content = match.match_content;
  const stick = nearBottom() || message.sender_id === state.me;
  const last = feed.messages[feed.messages.length - 1];
  const atEnd = last && message.id > last.id && !feed.byId.has(message.id) && feed.messages.length < WINDOW;
  addMessages([message]);
  if (atEnd) append(last, message);
  else {
    trim("newest");
    render({ keepScroll: true });
  }
  if (stick) select(message.id, { block: "end" });
});

bus.on("event:update_message", async (event) => {
  const ids = event.message_ids ?? [event.message_id];
  const present = ids.filter((id) => feed.byId.has(id));
  if (!present.length) {
    if (event.new_stream_id !== undefined || event.subject !== undefined) refetchIfAffected(event);
    return;
  }
  for (const id of present) {
    const message = feed.byId.get(id);
    if (id === event.message_id && event.rendered_content !== undefined) {
      message.content = event.rendered_content;
      delete message.match_content;
    }
    if (event.subject !== undefined || event.topic !== undefined) message.subject = event.subject ?? event.topic;
    if (event.new_stream_id !== undefined) {
      message.stream_id = event.new_stream_id;
      message.display_recipient = state.streams.get(event.new_stream_id)?.name ?? message.display_recipient;
    }
    if (event.edit_timestamp) {
      message.last_edit_timestamp = event.edit_timestamp;
      message.edit_history = [
        ...(message.edit_history ?? []),
        event.rendered_content !== undefined && id === event.message_id ? { prev_content: event.orig_content } : { prev_topic: event.orig_subject },
      ];
    }
  }
  if (feed.narrow.length && (event.new_stream_id !== undefined || event.subject !== undefined)) {
    const token = feed.token;
    const matches = await matching(present);
    if (token !== feed.token) return;
    for (const id of present) if (!matches.has(id)) forget(id);
  }
  render({ keepScroll: true });
});

async function refetchIfAffected(event) {
  // Messages moved into this narrow from elsewhere: fetch them if they now match.
  if (!feed.foundNewest) return;
  const token = feed.token;
  const matches = await matching(event.message_ids ?? [event.message_id]);
  if (token !== feed.token || !matches.size) return;
  const body = await fetchMessages(Math.min(...matches.keys()), 0, matches.size + BATCH);
  if (token !== feed.token) return;
  addMessages(body.messages.filter((m) => matches.has(m.id)));
  render({ keepScroll: true });
}

function forget(id) {
  feed.byId.delete(id);
  feed.messages = feed.messages.filter((m) => m.id !== id);
}

bus.on("event:delete_message", (event) => {
  for (const id of event.message_ids ?? [event.message_id]) forget(id);
  render({ keepScroll: true });
});

bus.on("event:update_message_flags", (event) => {
  const add = event.op === "add";
  const ids = event.all ? [...feed.byId.keys()] : event.messages;
  let changed = false;
  for (const id of ids) {
    const message = feed.byId.get(id);
    if (!message) continue;
    const flags = new Set(message.flags ?? []);
    add ? flags.add(event.flag) : flags.delete(event.flag);
    message.flags = [...flags];
    changed = true;
  }
  if (changed) render({ keepScroll: true });
});

bus.on("event:reaction", (event) => {
  const message = feed.byId.get(event.message_id);
  if (!message) return;
  const reactions = message.reactions ?? [];
  if (event.op === "add") reactions.push({ emoji_name: event.emoji_name, emoji_code: event.emoji_code, reaction_type: event.reaction_type, user_id: event.user_id });
  else {
    const index = reactions.findIndex((r) => r.user_id === event.user_id && r.emoji_code === event.emoji_code && r.reaction_type === event.reaction_type);
    if (index >= 0) reactions.splice(index, 1);
  }
  message.reactions = reactions;
  const node = feedNode().querySelector(`article.message[data-id="${message.id}"] .reactions`);
  node?.replaceWith(reactionButtons(message));
});

bus.on("event:realm_user", (event) => {
  // A new avatar shows on the sender's messages already in the feed.
  const person = event.person;
  if (event.op !== "update" || person.avatar_url === undefined) return;
  let changed = false;
  for (const message of feed.messages)
    if (message.sender_id === person.user_id) {
      message.avatar_url = person.avatar_url;
      changed = true;
    }
  if (changed) render({ keepScroll: true });
});

bus.on("reloaded", () => openNarrow(feed.narrow, feed.selectedId ? { anchor: feed.selectedId } : {}));
bus.on("display", () => render({ keepScroll: true }));
bus.on("feed:rerender", () => render({ keepScroll: true }));

// --- clicks -------------------------------------------------------------------------------

export function initFeed() {
  const node = feedNode();
  node.addEventListener("scroll", () => {
    if (node.scrollTop < 200) loadOlder();
    if (nearBottom()) loadNewer();
  });
  node.addEventListener("click", async (event) => {
    const article = event.target.closest("article.message");
    if (!article || article.classList.contains("local-echo")) return;
    const id = Number(article.dataset.id);
    const message = feed.byId.get(id);
    if (!message) return;
    const upload = event.target.closest('a[href*="/user_uploads/"]');
    if (upload && state.features.has("uploads")) {
      // An upload is fetched through a short-lived URL that the server signs for this person.
      event.preventDefault();
      const path = new URL(upload.href, location.origin).pathname.replace(/^.*?\/user_uploads\//, "");
      try {
        const body = await get(`/user_uploads/${path}`);
        window.open(body.url, "_blank", "noopener");
      } catch (error) {
        toast(error.message);
      }
      return;
    }
    if (event.target.closest("a")) return;
    select(id);
    if (event.target.closest("button.star")) {
      const starred = (message.flags ?? []).includes("starred");
      try {
        await post("/messages/flags", { messages: [id], op: starred ? "remove" : "add", flag: "starred" });
      } catch (error) {
        toast(error.message);
      }
    } else if (event.target.closest("button.actions-button")) {
      openActions(message, article);
    } else if (event.target.closest("button.sender")) {
      bus.emit("user-card", { userId: message.sender_id, anchor: event.target });
    }
  });
}

export function sameAsCurrent(narrow) {
  return sameNarrow(narrow, feed.narrow);
}
