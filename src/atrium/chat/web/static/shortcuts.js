// The keyboard shortcuts of Zulip's help for the features this client has, beyond the few in
// keyboard.js: scrolling, navigation between views and conversations, replying in its several
// ways, actions on the selected message, menus, and formatting in the compose box. `HELP` is
// what `?` lists (and the README repeats).

import { del, post } from "./api.js";
import { closeCompose, composeTarget, isComposeOpen, openCompose } from "./compose.js";
import { moveSelection, select, selectedMessage, shownMessages } from "./feed.js";
import { editMessage, moveTopic, openActions, quoteAndReply, reactionPicker, showHistory, showSource } from "./message_actions.js";
import { fromHash, toHash } from "./narrow.js";
import { focusStreamFilter } from "./left_sidebar.js";
import { openLightbox } from "./lightbox.js";
import { markUnreadFromHere, showReadReceipts } from "./message_reading.js";
import { closeOverlay, isOverlayOpen } from "./overlay.js";
import { canEditTopics, canMoveBetweenStreams } from "./permissions.js";
import { focusSearch } from "./search.js";
import { toast } from "./dom.js";
import { bus, state, topicKey } from "./state.js";

export const HELP = [
  [
    "The basics",
    [
      ["R or Enter", "Reply to the selected message"],
      ["C", "New stream message"],
      ["X", "New direct message"],
      ["Esc or Ctrl + [", "Close the compose box (the draft is kept), a menu or a dialog; else go to All messages"],
      ["D", "Drafts"],
      ["↓ or J", "Next message"],
      ["End or Shift + G", "Last message"],
      ["N", "Next unread topic"],
      ["P", "Next unread direct message"],
      ["/", "Search messages"],
      ["?", "Keyboard shortcuts (this list)"],
    ],
  ],
  [
    "Search",
    [
      ["/ or Ctrl + K", "Search messages"],
      ["Q", "Filter streams"],
      ["W", "Filter people"],
    ],
  ],
  [
    "Scrolling",
    [
      ["End or Shift + G", "Last message"],
      ["Home", "First message"],
      ["↑ or K", "Previous message"],
      ["↓ or J", "Next message"],
      ["PgUp or Shift + K", "Scroll up"],
      ["PgDn, Shift + J or Space", "Scroll down"],
    ],
  ],
  [
    "Navigation",
    [
      ["Alt + ← / Alt + →", "Back and forward through the views you opened"],
      ["N", "Next unread topic"],
      ["P", "Next unread direct message"],
      ["S", "The selected message's topic or conversation; from a topic, its stream"],
      ["Shift + P", "All direct messages"],
      ["Z", "The selected message in its conversation"],
      ["Shift + A / Shift + D", "Previous / next stream"],
      ["A", "All messages"],
      ["Shift + I", "Inbox"],
      ["T", "Recent conversations"],
      ["*", "Starred messages"],
      ["Ctrl + .", "The conversation you are writing to"],
    ],
  ],
  [
    "Composing messages",
    [
      ["C", "New stream message"],
      ["X", "New direct message"],
      ["R or Enter", "Reply to the selected message"],
      [">", "Quote the selected message"],
      ["Shift + R", "Reply directly to the sender"],
      ["@", "Reply @-mentioning the sender"],
    ],
  ],
  [
    "In the compose box",
    [
      ["Enter, Ctrl + Enter, or Tab then Enter", "Send"],
      ["Shift + Enter", "New line"],
      ["Ctrl + I", "Italic"],
      ["Ctrl + B", "Bold"],
      ["Ctrl + Shift + L", "Link"],
      ["Alt + P", "Preview"],
      ["Esc or Ctrl + [", "Close the compose box, keeping the draft"],
    ],
  ],
  [
    "Message actions",
    [
      ["←", "Edit your last message here"],
      ["E", "Edit the selected message, or see its source"],
      ["U", "The sender's user card"],
      ["M", "Move the message or rename its topic"],
      ["Shift + H", "Edit history"],
      ["Shift + U", "Mark as unread from the selected message"],
      ["Shift + V", "Read receipts"],
      ["V", "Show the selected message's images"],
      ["Ctrl + S", "Star or unstar"],
      ["+", "React with 👍"],
      ["=", "Toggle the first reaction"],
      ["Shift + M", "Mute or unmute the topic"],
    ],
  ],
  [
    "Stream browser",
    [
      ["↑ and ↓", "Through the streams (↑ from the first: the filter)"],
      ["← and →", "All, subscribed or other streams"],
      ["Shift + S", "Subscribe to or unsubscribe from the stream"],
      ["Shift + V", "The stream's messages"],
    ],
  ],
  [
    "Menus",
    [
      ["?", "Keyboard shortcuts"],
      ["G", "Settings"],
      [":", "Reactions for the selected message"],
      ["I", "Actions for the selected message"],
    ],
  ],
];

const go = (narrow) => {
  location.hash = toHash(narrow);
};

function articleOf(message) {
  return document.querySelector(`#feed article.message[data-id="${message.id}"]`);
}

function conversationOf(message) {
  if (message.type === "stream") return { type: "stream", stream_id: message.stream_id, topic: message.subject };
  return { type: "private", user_ids: message.display_recipient.map((r) => r.id).filter((id) => id !== state.me) };
}

function conversationNarrow(message) {
  if (message.type === "stream")
    return [
      { operator: "stream", operand: message.stream_id },
      { operator: "topic", operand: message.subject },
    ];
  const others = conversationOf(message).user_ids.sort((a, b) => a - b);
  return [{ operator: "dm", operand: others.length ? others : [state.me] }];
}

function scrollFeed(direction) {
  const feed = document.getElementById("feed");
  feed.scrollBy({ top: direction * feed.clientHeight * 0.8 });
}

function nextUnreadDm() {
  const current = location.hash;
  const entries = [...state.unread.entries()].filter(([, e]) => e.kind === "dm").sort(([a], [b]) => a - b);
  for (const [, entry] of entries) {
    const hash = toHash([{ operator: "dm", operand: entry.key.split(",").map(Number) }]);
    if (hash !== current) {
      location.hash = hash;
      return;
    }
  }
}

function cycleStreams(step) {
  const subs = [...state.subs.values()].sort((a, b) => (b.pin_to_top ? 1 : 0) - (a.pin_to_top ? 1 : 0) || a.name.localeCompare(b.name));
  if (!subs.length) return;
  const open = fromHash(location.hash).find((t) => t.operator === "stream")?.operand;
  const index = subs.findIndex((s) => s.stream_id === open);
  const next = index < 0 ? (step > 0 ? 0 : subs.length - 1) : (index + step + subs.length) % subs.length;
  go([{ operator: "stream", operand: subs[next].stream_id }]);
}

function toStreamOrConversation(message) {
  const narrow = fromHash(location.hash);
  const inTopic = narrow.some((t) => t.operator === "topic");
  const stream = narrow.find((t) => t.operator === "stream");
  if (inTopic && stream) return go([stream]);
  if (message) go(conversationNarrow(message));
}

async function attempt(promise) {
  try {
    await promise;
  } catch (error) {
    toast(error.message);
  }
}

function react(message, reaction) {
  const mine = (message.reactions ?? []).some((r) => r.user_id === state.me && r.emoji_code === reaction.emoji_code && r.reaction_type === reaction.reaction_type);
  const params = { emoji_name: reaction.emoji_name, emoji_code: reaction.emoji_code, reaction_type: reaction.reaction_type };
  return attempt((mine ? del : post)(`/messages/${message.id}/reactions`, params));
}

function editLast() {
  const mine = [...shownMessages()].reverse().find((m) => m.sender_id === state.me);
  if (!mine) return;
  select(mine.id);
  const article = articleOf(mine);
  if (article) editMessage(mine, article);
}

function toggleMute(message) {
  if (message.type !== "stream") return;
  const muted = state.userTopics.get(topicKey(message.stream_id, message.subject)) === 1;
  return attempt(post("/user_topics", { stream_id: message.stream_id, topic: message.subject, visibility_policy: muted ? 0 : 1 }));
}

function mentionSender(message) {
  const name = state.users.get(message.sender_id)?.full_name ?? message.sender_full_name;
  openCompose(conversationOf(message), { content: `@**${name}** ` });
}

// Keys acting on the selected message; nothing happens with none selected.
const ON_MESSAGE = {
  ">": quoteAndReply,
  R: (m) => openCompose({ type: "private", user_ids: [m.sender_id] }),
  "@": mentionSender,
  z: (m) => go([...conversationNarrow(m), { operator: "near", operand: m.id }]),
  e: (m) => (m.sender_id === state.me && articleOf(m) ? editMessage(m, articleOf(m)) : showSource(m)),
  u: (m) => bus.emit("user-card", { userId: m.sender_id, anchor: articleOf(m) }),
  m: (m) => m.type === "stream" && (canEditTopics() || canMoveBetweenStreams()) && moveTopic(m),
  H: (m) => m.last_edit_timestamp && showHistory(m),
  "+": (m) => state.features.has("reactions") && react(m, { emoji_name: "+1", emoji_code: "1f44d", reaction_type: "unicode_emoji" }),
  "=": (m) => m.reactions?.length && react(m, m.reactions[0]),
  M: toggleMute,
  ":": (m) => state.features.has("reactions") && reactionPicker(m),
  i: (m) => articleOf(m) && openActions(m, articleOf(m)),
  U: (m) => attempt(markUnreadFromHere(m, fromHash(location.hash))),
  V: (m) => state.realm.realm_enable_read_receipts && showReadReceipts(m),
  v: showImages,
};

// `v`: the selected message's first image in the viewer (its others are a click away there).
function showImages(message) {
  const preview = articleOf(message)?.querySelector(".message_inline_image img");
  const link = preview?.closest("a");
  if (link) openLightbox(preview, link);
}

const PLAIN = {
  End: () => moveSelection(shownMessages().length),
  G: () => moveSelection(shownMessages().length),
  Home: () => moveSelection(-shownMessages().length),
  PageUp: () => scrollFeed(-1),
  K: () => scrollFeed(-1),
  PageDown: () => scrollFeed(1),
  J: () => scrollFeed(1),
  " ": () => scrollFeed(1),
  p: nextUnreadDm,
  P: () => go([{ operator: "is", operand: "dm" }]),
  q: focusStreamFilter,
  w: () => {
    document.body.classList.add("show-right");
    document.querySelector("#right-sidebar input[type=search]")?.focus();
  },
  s: () => toStreamOrConversation(selectedMessage()),
  A: () => cycleStreams(-1),
  D: () => cycleStreams(1),
  a: () => {
    location.hash = "#all_messages";
  },
  I: () => {
    location.hash = "#inbox";
  },
  t: () => {
    location.hash = "#recent";
  },
  "*": () => go([{ operator: "is", operand: "starred" }]),
  d: () => {
    if (location.hash === "#drafts") history.back();
    else location.hash = "#drafts";
  },
  ArrowLeft: editLast,
  g: () => document.getElementById("open-settings").click(),
};

// Ctrl (or ⌘) with a key, wherever the focus is.
function withControl(event) {
  const key = event.key.toLowerCase();
  if (key === "k") focusSearch();
  else if (key === "[") {
    if (!closeOverlay() && isComposeOpen()) closeCompose();
  } else if (key === ".") {
    const to = composeTarget();
    if (to?.type === "stream" && to.stream_id)
      go([{ operator: "stream", operand: to.stream_id }, ...(to.topic ? [{ operator: "topic", operand: to.topic }] : [])]);
    else if (to?.type === "private" && to.user_ids.length) go([{ operator: "dm", operand: [...to.user_ids].sort((a, b) => a - b) }]);
    else return false;
  } else if (key === "s" && !isOverlayOpen() && selectedMessage()) {
    const message = selectedMessage();
    const starred = (message.flags ?? []).includes("starred");
    attempt(post("/messages/flags", { messages: [message.id], op: starred ? "remove" : "add", flag: "starred" }));
  } else return false;
  return true;
}

// Markdown around the selection in the compose box, as Zulip's formatting keys insert it.
function wrap(textarea, before, after, sample = "") {
  const { selectionStart: start, selectionEnd: end, value } = textarea;
  const chosen = value.slice(start, end) || sample;
  textarea.setRangeText(before + chosen + after, start, end, "end");
  if (!value.slice(start, end) && sample) textarea.setSelectionRange(start + before.length, start + before.length + chosen.length);
  textarea.dispatchEvent(new Event("input"));
}

function inCompose(event) {
  const textarea = event.target;
  if (textarea.id !== "compose-textarea") return false;
  const control = event.ctrlKey || event.metaKey;
  if (control && !event.shiftKey && event.key.toLowerCase() === "b") wrap(textarea, "**", "**");
  else if (control && !event.shiftKey && event.key.toLowerCase() === "i") wrap(textarea, "*", "*");
  else if (control && event.shiftKey && event.key.toLowerCase() === "l") {
    const { selectionStart: start, selectionEnd: end, value } = textarea;
    const text = value.slice(start, end);
    textarea.setRangeText(`[${text}](url)`, start, end, "end");
    const url = start + text.length + 3;
    textarea.setSelectionRange(url, url + 3);
    textarea.dispatchEvent(new Event("input"));
  } else if (event.altKey && event.code === "KeyP") document.getElementById("compose-preview").click();
  else return false;
  return true;
}

function typing(target) {
  return target.closest("input, textarea, select, [contenteditable]") !== null;
}

export function initShortcuts() {
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.isComposing) return;
    if (inCompose(event) || ((event.ctrlKey || event.metaKey) && !event.altKey && withControl(event))) {
      event.preventDefault();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target) || isOverlayOpen()) return;
    // Space and Enter on a button or link are the button's or link's.
    if (event.key === " " && event.target.closest("button, a, [role=tab]")) return;
    const onMessage = ON_MESSAGE[event.key];
    const plain = PLAIN[event.key];
    if (onMessage) {
      const message = selectedMessage();
      if (!message) return;
      event.preventDefault();
      onMessage(message);
    } else if (plain) {
      event.preventDefault();
      plain();
    }
  });
}
