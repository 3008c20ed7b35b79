// The stream browser: every stream this person may see (public ones and the private ones they
// are in), with its description and subscriber count, a filter, and Subscribe / Unsubscribe.
// Opened from the "+" beside the Streams heading.

import { del, post } from "./api.js";
import { clear, el, toast } from "./dom.js";
import { toHash } from "./narrow.js";
import { closeOverlay, openDialog } from "./overlay.js";
import { bus, state } from "./state.js";
import { subscriberCount } from "./stream_peers.js";

async function toggle(stream, subscribed) {
  try {
    if (subscribed) await del("/users/me/subscriptions", { subscriptions: [stream.name] });
    else await post("/users/me/subscriptions", { subscriptions: [{ name: stream.name }] });
    toast(subscribed ? `Unsubscribed from #${stream.name}` : `Subscribed to #${stream.name}`);
  } catch (error) {
    toast(error.message);
  }
}

function row(stream) {
  const subscribed = state.subs.has(stream.stream_id);
  const count = subscriberCount(stream.stream_id);
  const name = el("a", { class: "stream-browser-name", href: toHash([{ operator: "stream", operand: stream.stream_id }]), text: stream.name, onclick: () => closeOverlay() });
  return el(
    "li",
    { class: "stream-browser-row", dataset: { streamId: String(stream.stream_id) } },
    el(
      "div",
      { class: "stream-browser-main" },
      el("div", {}, stream.invite_only ? el("span", { class: "private-mark", text: "private", "aria-label": "Private stream" }) : null, name),
      el("p", { class: "stream-browser-description", text: stream.description || "No description." }),
    ),
    el("span", { class: "subscriber-count", "aria-label": `${count} subscribers`, text: `${count} ${count === 1 ? "subscriber" : "subscribers"}` }),
    el("button", {
      type: "button",
      class: subscribed ? "subscribe-button subscribed" : "subscribe-button primary",
      "aria-label": `${subscribed ? "Unsubscribe from" : "Subscribe to"} ${stream.name}`,
      text: subscribed ? "Unsubscribe" : "Subscribe",
      onclick: () => toggle(stream, subscribed),
    }),
  );
}

let redraw = () => {};

export function openStreamBrowser() {
  const filter = el("input", { type: "search", id: "stream-filter", placeholder: "Filter streams", "aria-label": "Filter streams", autocomplete: "off" });
  const only = el("select", { id: "stream-browser-show", "aria-label": "Which streams" }, el("option", { value: "all", text: "All streams" }), el("option", { value: "subscribed", text: "Subscribed" }), el("option", { value: "unsubscribed", text: "Not subscribed" }));
  const list = el("ul", { class: "stream-browser-list", "aria-label": "Streams" });
  const draw = () => {
    const words = filter.value.trim().toLowerCase();
    const shown = [...state.streams.values()]
      .filter((s) => !words || s.name.toLowerCase().includes(words) || (s.description ?? "").toLowerCase().includes(words))
      .filter((s) => only.value === "all" || (only.value === "subscribed") === state.subs.has(s.stream_id))
      .sort((a, b) => a.name.localeCompare(b.name));
    // A redraw (a subscription changed) keeps the focus on the same control of the same stream.
    const focused = document.activeElement?.closest?.(".stream-browser-row");
    const control = document.activeElement?.classList.contains("subscribe-button") ? ".subscribe-button" : ".stream-browser-name";
    clear(list).append(...shown.map(row));
    if (!shown.length) list.append(el("li", { class: "empty", text: "No streams match." }));
    if (focused) list.querySelector(`.stream-browser-row[data-stream-id="${focused.dataset.streamId}"] ${control}`)?.focus();
  };
  filter.addEventListener("input", draw);
  only.addEventListener("change", draw);
  draw();
  redraw = () => list.isConnected && draw();
  const dialog = openDialog("Streams", el("div", { class: "stream-browser" }, el("div", { class: "row" }, filter, only), list), { wide: true });
  dialog.addEventListener("keydown", (event) => browserKeys(event, { filter, only, list, draw }));
}

// Zulip's keys in the stream browser: ↑ and ↓ through the streams (↑ from the first goes back
// to the filter), ← and → between which streams are shown, and for the stream with the focus
// Shift+S to subscribe or unsubscribe and Shift+V to see its messages.
function browserKeys(event, { filter, only, list, draw }) {
  const links = [...list.querySelectorAll(".stream-browser-name")];
  const row = event.target.closest?.(".stream-browser-row");
  const index = links.indexOf(row?.querySelector(".stream-browser-name"));
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "ArrowDown" && (event.target === filter || row)) links[Math.min(index + 1, links.length - 1)]?.focus();
  else if (event.key === "ArrowUp" && row) (index > 0 ? links[index - 1] : filter).focus();
  else if ((event.key === "ArrowLeft" || event.key === "ArrowRight") && event.target !== filter && event.target !== only) {
    const step = event.key === "ArrowRight" ? 1 : -1;
    only.selectedIndex = (only.selectedIndex + step + only.options.length) % only.options.length;
    draw();
    only.focus();
  } else if (event.key === "S" && row) row.querySelector(".subscribe-button").click();
  else if (event.key === "V" && row) row.querySelector(".stream-browser-name").click();
  else return;
  event.preventDefault();
}

export function initStreamBrowser() {
  // After stream_peers.js has counted the change (it subscribes first).
  bus.on("event:subscription", () => redraw());
  bus.on("event:stream", () => redraw());
  bus.on("streams:browse", openStreamBrowser);
}
