// The right sidebar: people with their presence (active, idle, offline; reported by this
// client's heartbeat when the server has the presence API), user groups, and the user card.

import { post } from "./api.js";
import { afterPaint, avatar, clear, el } from "./dom.js";
import { toHash } from "./narrow.js";
import { closeOverlay, openDialog } from "./overlay.js";
import { bus, state } from "./state.js";

const ROLES = { 100: "Owner", 200: "Administrator", 300: "Moderator", 400: "Member", 600: "Guest" };
const OFFLINE_AFTER = 140; // seconds, as Zulip's OFFLINE_THRESHOLD_SECS
const HEARTBEAT_MS = 60000;
let filter = "";

function presenceOf(user) {
  const entry = state.presence.get(String(user.user_id)) ?? state.presence.get(user.email);
  if (!entry) return "offline";
  const now = Date.now() / 1000;
  if (entry.active_timestamp !== undefined) {
    if (now - entry.active_timestamp < OFFLINE_AFTER) return "active";
    if (now - (entry.idle_timestamp ?? 0) < OFFLINE_AFTER) return "idle";
    return "offline";
  }
  const aggregated = entry.aggregated ?? entry.website;
  if (!aggregated || now - aggregated.timestamp > OFFLINE_AFTER) return "offline";
  return aggregated.status === "active" ? "active" : "idle";
}

const ORDER = { active: 0, idle: 1, offline: 2 };

export function render() {
  const node = document.getElementById("right-sidebar");
  if (!state.me) return;
  const search = el("input", { type: "search", placeholder: "Filter people", "aria-label": "Filter people", value: filter });
  search.addEventListener("input", () => {
    filter = search.value;
    const list = node.querySelector(".user-list");
    list.replaceWith(userList());
  });
  const groups = el("ul", { class: "group-list", "aria-label": "User groups" });
  for (const group of [...state.groups.values()].filter((g) => !g.is_system_group).sort((a, b) => a.name.localeCompare(b.name)))
    groups.append(
      el(
        "li",
        {},
        el("button", {
          type: "button",
          class: "link-button",
          text: `${group.name} (${group.members.length})`,
          onclick: () => openDialog(group.name, el("ul", {}, group.members.map((id) => el("li", {}, state.users.get(id)?.full_name ?? String(id))))),
        }),
      ),
    );
  clear(node).append(el("h2", { class: "sidebar-heading", text: "People" }), search, userList(), el("h2", { class: "sidebar-heading", text: "User groups" }), groups);
}

// People shown at once; the rest follow after the page has painted (as Zulip's buddy list
// renders progressively): a thousand rows were most of a first load's DOM work.
const FIRST_PEOPLE = 100;
const byName = new Intl.Collator();

function userList() {
  const list = el("ul", { class: "user-list", "aria-label": "People" });
  const wanted = filter.toLowerCase();
  const users = [...state.users.values()]
    .filter((u) => u.is_active !== false && !u.is_bot && (!wanted || u.full_name.toLowerCase().includes(wanted) || u.email.toLowerCase().includes(wanted)))
    .map((u) => ({ user: u, presence: presenceOf(u) }))
    .sort((a, b) => ORDER[a.presence] - ORDER[b.presence] || byName.compare(a.user.full_name, b.user.full_name));
  const item = ({ user, presence }) =>
    el(
      "li",
      { class: `user-item presence-${presence}` },
      el("span", { class: "presence-dot", role: "img", "aria-label": presence }),
      el("button", { type: "button", class: "link-button user-name", text: user.full_name, dataset: { userId: String(user.user_id) }, onclick: () => userCard(user.user_id) }),
      statusText(user.user_id) ? el("span", { class: "user-status", text: statusText(user.user_id) }) : null,
    );
  list.append(...users.slice(0, FIRST_PEOPLE).map(item));
  if (users.length > FIRST_PEOPLE)
    afterPaint(() => {
      // A list replaced meanwhile (a new filter, a re-render) is no longer shown.
      if (list.isConnected) list.append(...users.slice(FIRST_PEOPLE).map(item));
    });
  return list;
}

const statusText = (userId) => state.userStatus.get(userId)?.status_text ?? "";

export function userCard(userId) {
  const user = state.users.get(userId);
  if (!user) return;
  let localTime = "";
  if (user.timezone) {
    try {
      localTime = new Date().toLocaleTimeString([], { timeZone: user.timezone, hour: "numeric", minute: "2-digit" });
    } catch {
      localTime = "";
    }
  }
  const body = el(
    "div",
    { class: "user-card" },
    avatar(user.avatar_url, user.full_name, 80),
    el("p", { class: "card-email", text: user.email }),
    statusText(userId) ? el("p", { class: "card-status", text: statusText(userId) }) : null,
    el("p", { class: "card-role", text: ROLES[user.role] ?? "Member" }),
    el("p", { class: "card-presence", text: `Presence: ${presenceOf(user)}` }),
    localTime ? el("p", { class: "card-time", text: `Local time: ${localTime} (${user.timezone})` }) : null,
    el(
      "div",
      { class: "row" },
      el("button", {
        type: "button",
        class: "primary",
        text: "Send a direct message",
        onclick: () => {
          closeOverlay();
          location.hash = toHash([{ operator: "dm", operand: [userId] }]);
          bus.emit("compose:open", { conversation: { type: "private", user_ids: [userId] } });
        },
      }),
      el("button", {
        type: "button",
        text: "View messages sent",
        onclick: () => {
          closeOverlay();
          location.hash = toHash([{ operator: "sender", operand: userId }]);
        },
      }),
    ),
  );
  openDialog(user.full_name, body);
}

let lastInput = Date.now();

async function heartbeat() {
  if (!state.features.has("presence")) return;
  const idle = Date.now() - lastInput > 5 * 60000 || document.visibilityState !== "visible";
  try {
    const body = await post("/users/me/presence", { status: idle ? "idle" : "active", new_user_input: !idle, ping_only: false, slim_presence: true });
    if (body.presences) {
      state.presence = new Map(Object.entries(body.presences));
      render();
    }
  } catch {
    // The next heartbeat tries again.
  }
}

export function initRightSidebar() {
  bus.on("state", render);
  bus.on("event:realm_user", render);
  bus.on("event:presence", render);
  bus.on("event:user_group", render);
  bus.on("event:user_status", render);
  bus.on("user-card", ({ userId }) => userCard(userId));
  for (const type of ["keydown", "mousedown", "touchstart"]) window.addEventListener(type, () => (lastInput = Date.now()), { passive: true });
  let started = false;
  bus.on("state", () => {
    if (started) return;
    started = true;
    heartbeat();
    setInterval(heartbeat, HEARTBEAT_MS);
  });
}
