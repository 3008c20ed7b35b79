// Personal settings: profile (name, time zone, avatar, status text), display (light or dark
// theme, 24-hour time) and notifications (notification_settings.js), all kept in the user's server-side settings;
// administrators also reach the organization pages (admin.js).

import { patch, post } from "./api.js";
import { avatar, clear, el, toast } from "./dom.js";
import { adminPages } from "./admin.js";
import { botsPage } from "./bots.js";
import { customEmojiPage } from "./custom_emoji.js";
import { invitationsPage } from "./invites.js";
import { initNotificationSettings, notificationsPage } from "./notification_settings.js";
import { initNotifications } from "./notifications.js";
import { canInvite, isGuest } from "./permissions.js";
import { field, openDialog } from "./overlay.js";
import { bus, isAdmin, state, theme } from "./state.js";

// One setting changed here: shown at once, then stored on the server (whose `user_settings`
// event brings it to this person's other browsers).
async function changeSetting(property, value) {
  const previous = state.settings[property];
  state.settings[property] = value;
  bus.emit("display", { property, value });
  try {
    await patch("/settings", { [property]: value });
  } catch (error) {
    state.settings[property] = previous;
    bus.emit("display", { property, value: previous });
    toast(error.message);
  }
}

function avatarForm() {
  const me = state.users.get(state.me) ?? {};
  const picture = el("div", { class: "profile-avatar", id: "profile-avatar" }, avatar(me.avatar_url, me.full_name, 80));
  const file = el("input", { type: "file", id: "avatar-file", accept: "image/*" });
  file.addEventListener("change", async () => {
    if (!file.files[0]) return;
    const data = new FormData();
    data.append("file", file.files[0]);
    try {
      const body = await post("/users/me/avatar", data);
      clear(picture).append(avatar(body.avatar_url, me.full_name, 80));
      toast("Avatar changed");
    } catch (error) {
      toast(error.message);
    }
    file.value = "";
  });
  return el("div", { class: "dialog-form" }, picture, field("Upload a new avatar", file));
}

function statusForm() {
  const current = state.userStatus.get(state.me)?.status_text ?? "";
  const text = el("input", { type: "text", id: "status-text", value: current, maxlength: "60", placeholder: "What are you up to?" });
  const form = el(
    "form",
    { class: "dialog-form" },
    field("Status", text),
    el("div", { class: "row" }, el("button", { type: "submit", class: "primary", id: "save-status", text: "Set status" }), el("button", { type: "button", id: "clear-status", text: "Clear status", onclick: () => save("") })),
  );
  async function save(value) {
    try {
      await post("/users/me/status", { status_text: value });
      text.value = value;
      toast(value ? "Status set" : "Status cleared");
    } catch (error) {
      toast(error.message);
    }
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    save(text.value.trim());
  });
  return form;
}

function profilePage() {
  const me = state.users.get(state.me) ?? {};
  const name = el("input", { type: "text", value: me.full_name ?? "", required: true });
  const zone = el("input", { type: "text", value: state.settings.timezone ?? "", placeholder: Intl.DateTimeFormat().resolvedOptions().timeZone, list: "tz-list" });
  const zones = el("datalist", { id: "tz-list" });
  for (const z of Intl.supportedValuesOf?.("timeZone") ?? []) zones.append(el("option", { value: z }));
  const form = el("form", { class: "dialog-form" }, field("Full name", name), field("Time zone", zone), zones, el("button", { type: "submit", class: "primary", text: "Save profile" }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await patch("/settings", { full_name: name.value, timezone: zone.value });
      toast("Profile saved");
    } catch (error) {
      toast(error.message);
    }
  });
  return el("div", {}, form, avatarForm(), statusForm());
}

export function applyTheme() {
  document.documentElement.dataset.theme = theme();
}

const SCHEMES = { auto: 1, dark: 2, light: 3 };

function displayPage() {
  const select = el(
    "select",
    { id: "setting-theme" },
    el("option", { value: "auto", text: "Same as the system" }),
    el("option", { value: "light", text: "Light" }),
    el("option", { value: "dark", text: "Dark" }),
  );
  select.value = Object.keys(SCHEMES).find((k) => SCHEMES[k] === state.settings.color_scheme) ?? "auto";
  select.addEventListener("change", () => changeSetting("color_scheme", SCHEMES[select.value]));
  const clock = el("input", { type: "checkbox", id: "setting-24h", checked: Boolean(state.settings.twenty_four_hour_time) });
  clock.addEventListener("change", () => changeSetting("twenty_four_hour_time", clock.checked));
  return el("div", { class: "dialog-form" }, field("Theme", select), el("label", { class: "check" }, clock, " Use 24-hour time"));
}

export function openSettings(page = "profile", options = {}) {
  const pages = { profile: ["Profile", profilePage], display: ["Display", displayPage], notifications: ["Notifications", notificationsPage] };
  const admin = adminPages();
  // Everyone may look at a stream's settings (the server decides what they may change).
  if (isAdmin()) Object.assign(pages, admin);
  else pages.streams = admin.streams;
  if (canInvite()) pages.invitations = ["Invitations", invitationsPage];
  if (!isGuest()) pages.bots = ["Bots", botsPage];
  pages.emoji = ["Custom emoji", customEmojiPage];
  const content = el("div", { class: "settings-content", role: "tabpanel" });
  const tabs = el("div", { class: "settings-tabs", role: "tablist", "aria-label": "Settings pages" });
  const show = (key) => {
    for (const b of tabs.children) b.setAttribute("aria-selected", String(b.dataset.page === key));
    clear(content).append(pages[key][1](options));
  };
  for (const [key, [label]] of Object.entries(pages))
    tabs.append(el("button", { type: "button", role: "tab", dataset: { page: key }, id: `settings-tab-${key}`, text: label, onclick: () => show(key) }));
  openDialog("Settings", el("div", { class: "settings" }, tabs, content), { wide: true });
  show(pages[page] ? page : "profile");
}

export function initSettings() {
  document.getElementById("open-settings").addEventListener("click", () => openSettings());
  bus.on("settings:open", ({ page, streamId }) => openSettings(page, { streamId }));
  bus.on("state", applyTheme);
  bus.on("display", applyTheme);
  bus.on("event:user_settings", (event) => {
    applyTheme();
    if (event.property === "twenty_four_hour_time") bus.emit("feed:rerender");
  });
  window.matchMedia?.("(prefers-color-scheme: dark)").addEventListener?.("change", applyTheme);
  initNotifications();
  initNotificationSettings();
}
