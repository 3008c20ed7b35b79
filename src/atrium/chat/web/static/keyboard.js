// Keyboard shortcuts: j/k (or arrows) move the selection, n the next unread topic, r reply,
// c compose, x new direct message, / search, Esc closes, ? lists them all (the others are
// in shortcuts.js).

import { closeCompose, isComposeOpen, openCompose } from "./compose.js";
import { el } from "./dom.js";
import { moveSelection, selectedMessage } from "./feed.js";
import { toHash } from "./narrow.js";
import { closeOverlay, isOverlayOpen, openDialog } from "./overlay.js";
import { focusSearch } from "./search.js";
import { HELP, initShortcuts } from "./shortcuts.js";
import { bus, state } from "./state.js";

function showHelp() {
  const sections = HELP.map(([title, rows]) =>
    el(
      "section",
      { class: "shortcut-section", "aria-label": title },
      el("h3", { text: title }),
      el("table", { class: "shortcuts" }, el("tbody", {}, rows.map(([keys, what]) => el("tr", {}, el("th", { scope: "row" }, el("kbd", { text: keys })), el("td", { text: what }))))),
    ),
  );
  openDialog("Keyboard shortcuts", el("div", { class: "shortcut-help" }, sections), { wide: true });
}

function nextUnreadTopic() {
  const current = location.hash;
  const seen = new Set();
  const subs = [...state.subs.values()].sort((a, b) => a.name.localeCompare(b.name));
  const order = new Map(subs.map((s, i) => [s.stream_id, i]));
  const entries = [...state.unread.entries()]
    .filter(([, e]) => e.kind === "stream" && order.has(e.stream_id))
    .sort(([a, x], [b, y]) => order.get(x.stream_id) - order.get(y.stream_id) || a - b);
  for (const [, entry] of entries) {
    const hash = toHash([
      { operator: "stream", operand: entry.stream_id },
      { operator: "topic", operand: entry.topic },
    ]);
    if (seen.has(hash)) continue;
    seen.add(hash);
    if (hash !== current) {
      location.hash = hash;
      return;
    }
  }
}

function typing(target) {
  return target.closest("input, textarea, select, [contenteditable]") !== null;
}

export function initKeyboard() {
  initShortcuts();
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "Escape") {
      if (closeOverlay()) return event.preventDefault();
      if (isComposeOpen()) {
        closeCompose();
        return event.preventDefault();
      }
      document.getElementById("feed").focus({ preventScroll: true });
      // As in Zulip, Esc with nothing open goes back to the home view (All messages).
      if (!typing(event.target) && location.hash && location.hash !== "#all_messages") location.hash = "#all_messages";
      return;
    }
    if (typing(event.target) || isOverlayOpen()) return;
    const actions = {
      j: () => moveSelection(1),
      ArrowDown: () => moveSelection(1),
      k: () => moveSelection(-1),
      ArrowUp: () => moveSelection(-1),
      n: nextUnreadTopic,
      r: () => selectedMessage() && bus.emit("compose:reply", selectedMessage()),
      Enter: () => selectedMessage() && bus.emit("compose:reply", selectedMessage()),
      c: () => openCompose(),
      x: () => openCompose({ type: "private", user_ids: [] }),
      "/": focusSearch,
      "?": showHelp,
    };
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  });
}
