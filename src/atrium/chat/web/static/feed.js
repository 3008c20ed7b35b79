// The message feed of one narrow, on the page: fetched by anchors from GET /messages (older
// history as the user scrolls up), grouped under recipient bars, kept current by the events, and
// marked read as messages are seen. Message bodies are the server's rendered, sanitized HTML. The
// feed holds a bounded window of messages (message_window.js, fetched by message_fetch.js):
// loading one end drops the far end, which is fetched again by anchor when the reader scrolls
// back to it, so long histories keep the DOM small. A change to flags or reactions updates the
// message's own node; the feed is drawn again only when messages come, go or move.

import { markAlertWords } from "./alert_words.js";
import { get, post } from "./api.js";
import { avatar, clear, el, setServerHtml, showEmoji, toast } from "./dom.js";
import { lightboxClick } from "./lightbox.js";
import { openActions, reactionButtons, reactionPicker } from "./message_actions.js";
import { BATCH, fetchMessages, FIRST_BEFORE, matching, startAnchor, takePrefetched } from "./message_fetch.js";
import {
  addMessages,
  appendsAtEnd,
  applyAvatar,
  applyEdit,
  applyFlags,
  applyReaction,
  createWindow,
  first,
  forget,
  hasFlag,
  isUnread,
  last,
  moves,
  trim,
} from "./message_window.js";
import { ALL, describe, matchesLocally, sameNarrow, toHash } from "./narrow.js";
import { unsentIn, unsentNode } from "./outbox.js";
import { bus, messageDmKey, state, userName } from "./state.js";
import { formatDateTime, formatTime, isoTime } from "./time.js";

const feedNode = () => document.getElementById("feed");
const articleNode = (id) => feedNode().querySelector(`article.message[data-id="${id}"]`);

// The messages shown (message_window.js) and what only the view keeps: the selection, whether
// an end is being fetched, and the token that makes answers for a narrow left behind stale.
let win = createWindow(ALL);

export const feed = {
  selectedId: null,
  loading: false,
  token: 0,
};

// --- fetching ---------------------------------------------------------------------------

// A prefetched answer may have been read before the event queue existed, so a message sent in
// between reached neither; the register response's max_message_id (read after the queue was
// made) tells whether to ask for what came after the feed's last message.
async function catchUp(token) {
  const end = last(win);
  if (!win.foundNewest || state.maxMessageId <= (end?.id ?? 0)) return;
  const body = await fetchMessages(win.narrow, end?.id ?? 0, 0, BATCH, false);
  if (token !== feed.token || !body.messages.length) return;
  win.foundNewest = body.found_newest;
  addMessages(win, body.messages);
  trim(win, "newest");
  render({ keepScroll: true });
}

export async function openNarrow(narrow, { anchor } = {}) {
  const token = ++feed.token;
  keepUnread = false;
  win = createWindow(narrow);
  feed.selectedId = null;
  const node = feedNode();
  clear(node).append(el("p", { class: "feed-status", text: "Loading…" }));
  document.getElementById("narrow-bar").textContent = describe(narrow);
  const start = anchor ?? startAnchor(narrow);
  const prefetched = takePrefetched(narrow);
  const early = anchor === undefined ? prefetched : null;
  let body;
  try {
    body = await (early ?? fetchMessages(narrow, start, FIRST_BEFORE, BATCH));
  } catch (error) {
    if (token === feed.token) clear(node).append(el("p", { class: "feed-status error", role: "alert", text: error.message }));
    return;
  }
  if (token !== feed.token) return;
  win.foundOldest = body.found_oldest;
  win.foundNewest = body.found_newest;
  addMessages(win, body.messages);
  render();
  const target = win.byId.get(body.anchor) ?? last(win);
  if (target) select(target.id, { block: win.byId.has(body.anchor) && start !== "newest" ? "start" : "end" });
  bus.emit("feed:opened", narrow);
  if (early) catchUp(token).catch(() => {});
}

async function loadOlder() {
  if (feed.loading || win.foundOldest || !win.messages.length) return;
  feed.loading = true;
  const token = feed.token;
  try {
    const body = await fetchMessages(win.narrow, first(win).id, BATCH, 0, false);
    if (token !== feed.token) return;
    win.foundOldest = body.found_oldest;
    addMessages(win, body.messages);
    trim(win, "oldest");
    render({ keepScroll: true });
  } finally {
    feed.loading = false;
  }
}

async function loadNewer() {
  if (feed.loading || win.foundNewest || !win.messages.length) return;
  feed.loading = true;
  const token = feed.token;
  try {
    const body = await fetchMessages(win.narrow, last(win).id, 0, BATCH, false);
    if (token !== feed.token) return;
    win.foundNewest = body.found_newest;
    addMessages(win, body.messages);
    trim(win, "newest");
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

// The star button's look for a starred or unstarred message, when drawn and when the flag changes.
function paintStar(button, starred) {
  button.classList.toggle("starred", starred);
  button.setAttribute("aria-pressed", starred ? "true" : "false");
  button.setAttribute("aria-label", starred ? "Unstar this message" : "Star this message");
  button.textContent = starred ? "★" : "☆";
}

export function messageNode(message, continued) {
  const unread = isUnread(message, state.me);
  const star = el("button", { type: "button", class: "star" });
  paintStar(star, hasFlag(message, "starred"));
  const content = el("div", { class: "message-content rendered" });
  setServerHtml(content, message.match_content ?? message.content);
  showEmoji(content);
  markAlertWords(content, message);
  const node = el(
    "article",
    {
      class: `message${continued ? " continued" : ""}${unread ? " unread" : ""}${hasFlag(message, "mentioned") ? " mentioned" : ""}`,
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
      star,
      state.features.has("reactions") && el("button", { type: "button", class: "quick-react", "aria-label": "Add emoji reaction", title: "Add emoji reaction" }),
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
  const last = node.querySelector(":scope > .recipient-group:last-of-type");
  if (nodes.length === 1 && last) last.append(article);
  else node.insertBefore(group(nodes), node.querySelector(":scope > article.local-echo"));
  if (article.classList.contains("unread")) observer?.observe(article);
}

// A conversation's run of messages under its recipient bar: the bar sticks to the top only
// while its own messages are in view, and the next group's bar pushes it away instead of
// sliding over it.
function group(nodes) {
  return el("div", { class: "recipient-group" }, ...nodes);
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
  if (win.foundOldest && win.messages.length) fragment.append(el("p", { class: "feed-edge", text: "Beginning of this conversation" }));
  let current = null;
  for (const message of win.messages) {
    const nodes = nodesAfter(previous, message);
    if (nodes.length === 2 || !current) {
      current = group(nodes);
      fragment.append(current);
    } else current.append(nodes[0]);
    previous = message;
  }
  if (!win.messages.length) fragment.append(el("p", { class: "feed-status", text: "No messages here yet." }));
  fragment.append(...unsentIn(win.narrow).map(unsentNode));
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
  const target = articleNode(id);
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
  const all = [...feedNode().querySelectorAll("article.message[data-id]")];
  const index = all.indexOf(target);
  const nodes = index < 0 ? [target] : all.slice(Math.max(0, index - REVEAL), index + REVEAL + 1);
  for (const node of nodes) node.classList.add("drawn");
  requestAnimationFrame(() => requestAnimationFrame(() => nodes.forEach((node) => node.classList.remove("drawn"))));
}

// The messages the feed holds, oldest first (for the keyboard shortcuts).
export const shownMessages = () => win.messages;

export function selectedMessage() {
  return win.byId.get(feed.selectedId) ?? null;
}

export function moveSelection(step) {
  if (!win.messages.length) return;
  const index = win.messages.findIndex((m) => m.id === feed.selectedId);
  const next = Math.max(0, Math.min(win.messages.length - 1, (index < 0 ? win.messages.length - 1 : index) + step));
  select(win.messages[next].id);
  articleNode(win.messages[next].id)?.focus({ preventScroll: true });
  if (next === 0) loadOlder();
  if (next === win.messages.length - 1) loadNewer();
}

const toMarkRead = new Set();
let readTimer = null;

// After "Mark as unread from here", what is on screen stays unread until another view opens.
let keepUnread = false;
bus.on("feed:keep-unread", () => {
  keepUnread = true;
  toMarkRead.clear();
});

function onVisible(entries) {
  if (document.visibilityState !== "visible" || keepUnread) return;
  for (const entry of entries) {
    if (!entry.isIntersecting) continue;
    const id = Number(entry.target.dataset.id);
    const message = win.byId.get(id);
    if (message && !hasFlag(message, "read")) toMarkRead.add(id);
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

// --- unsent messages (outbox.js keeps them) ---------------------------------------------

function showUnsent(fresh) {
  const node = feedNode();
  for (const old of node.querySelectorAll("article.local-echo")) old.remove();
  const nodes = unsentIn(win.narrow).map(unsentNode);
  node.append(...nodes);
  if (fresh && nodes.length) nodes[nodes.length - 1].scrollIntoView({ block: "end" });
}

bus.on("outbox", ({ fresh }) => showUnsent(fresh));

// --- live updates -----------------------------------------------------------------------

// Whether a new message is shown in the narrow in view (desktop notifications skip those).
export async function inView(id) {
  if (!win.foundNewest) return false;
  try {
    return (await matching(win.narrow, [id])).has(id);
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
  if (!win.foundNewest) return;
  const token = feed.token;
  // A stream or topic narrow decides here, without a round trip to the server.
  const local = win.narrow.length ? matchesLocally(win.narrow, message) : true;
  const matches = local === undefined ? await matching(win.narrow, [message.id]) : new Map(local ? [[message.id, null]] : []);
  if (token !== feed.token || !matches.has(message.id)) return;
  const match = matches.get(message.id);
  if (match?.match_content) message.match_content = match.match_content;
  const stick = nearBottom() || message.sender_id === state.me;
  const previous = last(win);
  const atEnd = appendsAtEnd(win, message);
  addMessages(win, [message]);
  if (atEnd) append(previous, message);
  else {
    trim(win, "newest");
    render({ keepScroll: true });
  }
  if (stick) select(message.id, { block: "end" });
});

bus.on("event:update_message", async (event) => {
  const present = applyEdit(win, event, (id) => state.streams.get(id)?.name);
  if (!present.length) {
    if (moves(event)) refetchIfAffected(event);
    return;
  }
  if (win.narrow.length && moves(event)) {
    const token = feed.token;
    const matches = await matching(win.narrow, present);
    if (token !== feed.token) return;
    for (const id of present) if (!matches.has(id)) forget(win, id);
  }
  render({ keepScroll: true });
});

async function refetchIfAffected(event) {
  // Messages moved into this narrow from elsewhere: fetch them if they now match.
  if (!win.foundNewest) return;
  const token = feed.token;
  const matches = await matching(win.narrow, event.message_ids ?? [event.message_id]);
  if (token !== feed.token || !matches.size) return;
  const body = await fetchMessages(win.narrow, Math.min(...matches.keys()), 0, matches.size + BATCH);
  if (token !== feed.token) return;
  addMessages(win, body.messages.filter((m) => matches.has(m.id)));
  render({ keepScroll: true });
}

bus.on("event:delete_message", (event) => {
  for (const id of event.message_ids ?? [event.message_id]) forget(win, id);
  render({ keepScroll: true });
});

// Read, unread, starred and mentioned show on the message's own node: reading sends flags every
// quarter second, and each answer changes a few messages, not the feed.
function showFlags(message) {
  const article = articleNode(message.id);
  if (!article) return;
  const unread = isUnread(message, state.me);
  article.classList.toggle("unread", unread);
  article.classList.toggle("mentioned", hasFlag(message, "mentioned"));
  const star = article.querySelector(".message-head button.star");
  if (star) paintStar(star, hasFlag(message, "starred"));
  if (unread) observer?.observe(article);
}

bus.on("event:update_message_flags", (event) => {
  for (const message of applyFlags(win, event)) showFlags(message);
});

bus.on("event:reaction", (event) => {
  const message = applyReaction(win, event);
  if (!message) return;
  articleNode(message.id)?.querySelector(".reactions")?.replaceWith(reactionButtons(message));
});

bus.on("event:realm_user", (event) => {
  // A new avatar shows on the sender's messages already in the feed.
  const person = event.person;
  if (event.op !== "update" || person.avatar_url === undefined) return;
  if (applyAvatar(win, person)) render({ keepScroll: true });
});

bus.on("reloaded", () => openNarrow(win.narrow, feed.selectedId ? { anchor: feed.selectedId } : {}));
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
    const message = win.byId.get(id);
    if (!message) return;
    if (lightboxClick(event)) return;
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
      const starred = hasFlag(message, "starred");
      try {
        await post("/messages/flags", { messages: [id], op: starred ? "remove" : "add", flag: "starred" });
      } catch (error) {
        toast(error.message);
      }
    } else if (event.target.closest("button.actions-button")) {
      openActions(message, article, win.narrow);
    } else if (event.target.closest("button.quick-react")) {
      reactionPicker(message);
    } else if (event.target.closest("button.sender")) {
      bus.emit("user-card", { userId: message.sender_id, anchor: event.target });
    }
  });
}

export function sameAsCurrent(narrow) {
  return sameNarrow(narrow, win.narrow);
}
