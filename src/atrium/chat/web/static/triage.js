// The views people triage with, shown in the centre in place of the feed: Inbox (#inbox) and
// Recent conversations (#recent). Both follow the events while shown; "Mark all as read" asks
// first, as Zulip does.

import { post } from "./api.js";
import { el, toast } from "./dom.js";
import { renderInbox } from "./inbox.js";
import { closeOverlay, openDialog } from "./overlay.js";
import { forgetRecent, loadRecent, noteMessage, renderRecent } from "./recent.js";
import { bus } from "./state.js";

const TITLES = { inbox: "Inbox", recent: "Recent conversations" };
// Events that change nothing these views show (and come often).
const UNSHOWN_EVENTS = new Set(["typing", "presence", "user_status", "heartbeat"]);
let showing = null;
let container = null;
let pending = false;

function markAllAsRead() {
  const confirm = el("button", {
    type: "button",
    class: "primary",
    id: "confirm-mark-all-read",
    text: "Mark all as read",
    onclick: async () => {
      closeOverlay();
      try {
        await post("/mark_all_as_read");
      } catch (error) {
        toast(error.message);
      }
    },
  });
  openDialog("Mark all messages as read?", el("div", { class: "dialog-form" }, el("p", { text: "Every unread message in every conversation will be marked as read." }), confirm));
}

function header() {
  return el(
    "div",
    { class: "triage-head" },
    // The narrow bar above already shows the title; this heading is for screen readers.
    el("h2", { class: "triage-title visually-hidden", text: TITLES[showing] }),
    el("button", { type: "button", id: "mark-all-read", class: "text-button", text: "Mark all as read", onclick: markAllAsRead }),
  );
}

function render() {
  if (!showing) return;
  if (showing === "inbox") renderInbox(container, render, header());
  else renderRecent(container, render, header());
}

// Many events come in bursts; the view is drawn once per frame at most.
function renderSoon() {
  if (!showing || pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    render();
  });
}

export function isTriageHash(hash) {
  return hash === "#inbox" || hash === "#recent";
}

export function showTriage(kind) {
  if (!container) {
    container = el("div", { id: "triage", class: "triage", tabindex: "-1" });
    document.getElementById("feed").before(container);
  }
  showing = kind;
  document.body.classList.add("triage-open");
  document.getElementById("narrow-bar").textContent = TITLES[kind];
  container.hidden = false;
  render();
}

export function hideTriage() {
  if (!showing) return;
  showing = null;
  document.body.classList.remove("triage-open");
  container.hidden = true;
}

// Recent conversations' list is fetched once the first view has painted and the page is idle,
// so that opening it later shows it at once, without delaying the first screen.
const PREFETCH_AFTER_MS = 1500;

export function initTriage() {
  let prefetched = false;
  bus.on("feed:opened", () => {
    if (prefetched) return;
    prefetched = true;
    setTimeout(() => loadRecent().catch(() => {}), PREFETCH_AFTER_MS);
  });
  bus.on("event:message", (event) => noteMessage(event.message));
  bus.on("event:update_message", (event) => {
    // A topic or stream moved: the list is built again from the server when next shown.
    if (event.subject !== undefined || event.new_stream_id !== undefined) forgetRecent();
  });
  bus.on("reloaded", forgetRecent);
  bus.on("event", (event) => UNSHOWN_EVENTS.has(event.type) || renderSoon());
  bus.on("state", renderSoon);
}
