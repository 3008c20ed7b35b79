// What the person is told about the connection: a banner while the server cannot be reached
// (with "Try now"), and a notice when the session has ended, whose "Sign in again" comes back
// to the same view. Unsent messages and the compose box are kept in this browser meanwhile
// (outbox.js, compose.js), so signing in again loses nothing.

import { el } from "./dom.js";
import { retryNow, stopEventLoop } from "./events.js";
import { bus, state } from "./state.js";

const RETURN_KEY = "atrium.return";
let banner = null;
let expired = false;

function show(kind, text, button) {
  if (!banner) {
    banner = el("div", { id: "connection-banner", class: "connection-banner", role: "alert" });
    document.body.prepend(banner);
  }
  banner.className = `connection-banner ${kind}`;
  banner.replaceChildren(el("span", { text }), button ?? "");
  banner.hidden = false;
}

function hide() {
  if (banner) banner.hidden = true;
}

function sessionEnded() {
  if (expired) return;
  expired = true;
  stopEventLoop();
  // The view to come back to after signing in again (by the button or by reloading the page,
  // which then shows the sign-in form), remembered by this tab.
  sessionStorage.setItem(RETURN_KEY, location.hash);
  const signIn = el("button", {
    type: "button",
    class: "primary",
    id: "sign-in-again",
    text: "Sign in again",
    onclick: () => location.assign("/"),
  });
  show("expired", "Your session has expired. Nothing you typed is lost: sign in again to send it.", signIn);
}

// After signing in again: back to the view the person was in.
export function returnToPlace() {
  const hash = sessionStorage.getItem(RETURN_KEY);
  sessionStorage.removeItem(RETURN_KEY);
  if (hash && !location.hash) history.replaceState(null, "", hash);
}

// Signing out on purpose leaves nothing typed in this browser for the next person at it (what was
// saved as a draft stays on the server).
function forgetLocalCopies() {
  for (const key of [`atrium.outbox.${state.me}`, `atrium.compose.${state.me}`]) localStorage.removeItem(key);
}

export function initConnection() {
  window.addEventListener("atrium:unauthorized", sessionEnded);
  document.querySelector(".logout-form")?.addEventListener("submit", forgetLocalCopies);
  bus.on("connection", (status) => {
    if (expired) return;
    if (status === "ok") hide();
    else show("offline", "Unable to connect to the server. Reconnecting…", el("button", { type: "button", class: "text-button", id: "reconnect-now", text: "Try now", onclick: retryNow }));
  });
}
