// Personal settings: profile (name, time zone), display (light or dark theme, 24-hour time)
// and desktop notifications; administrators also reach the organization pages (admin.js).

import { patch } from "./api.js";
import { clear, el, toast } from "./dom.js";
import { adminPages } from "./admin.js";
import { field, openDialog } from "./overlay.js";
import { bus, display, isAdmin, setDisplay, state } from "./state.js";

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
  return form;
}

export function applyTheme() {
  document.documentElement.dataset.theme = display("theme", "light");
}

function displayPage() {
  const theme = el("select", { id: "setting-theme" }, el("option", { value: "light", text: "Light" }), el("option", { value: "dark", text: "Dark" }));
  theme.value = display("theme", "light");
  theme.addEventListener("change", () => {
    setDisplay("theme", theme.value);
    applyTheme();
  });
  const clock = el("input", { type: "checkbox", id: "setting-24h", checked: display("twenty_four_hour_time", false) });
  clock.addEventListener("change", () => setDisplay("twenty_four_hour_time", clock.checked));
  return el("div", { class: "dialog-form" }, field("Theme", theme), el("label", { class: "check" }, clock, " Use 24-hour time"));
}

function notificationsPage() {
  const supported = "Notification" in window;
  const box = el("input", { type: "checkbox", id: "setting-desktop", checked: display("desktop_notifications", false), disabled: !supported });
  box.addEventListener("change", async () => {
    if (box.checked && Notification.permission !== "granted") {
      const answer = await Notification.requestPermission();
      if (answer !== "granted") {
        box.checked = false;
        toast("The browser did not allow notifications.");
      }
    }
    setDisplay("desktop_notifications", box.checked);
  });
  return el(
    "div",
    { class: "dialog-form" },
    el("label", { class: "check" }, box, " Desktop notifications for direct messages and mentions"),
    supported ? null : el("p", { text: "This browser has no notifications." }),
  );
}

export function openSettings(page = "profile", options = {}) {
  const pages = { profile: ["Profile", profilePage], display: ["Display", displayPage], notifications: ["Notifications", notificationsPage] };
  const admin = adminPages();
  // Everyone may look at a stream's settings (the server decides what they may change).
  if (isAdmin()) Object.assign(pages, admin);
  else pages.streams = admin.streams;
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

// Desktop notifications for DMs and mentions, while the page is hidden.
function notify(event) {
  if (!display("desktop_notifications", false) || !("Notification" in window) || Notification.permission !== "granted") return;
  const message = event.message;
  const flags = event.flags ?? [];
  if (message.sender_id === state.me || document.visibilityState === "visible") return;
  if (message.type !== "private" && !flags.includes("mentioned") && !flags.includes("wildcard_mentioned")) return;
  new Notification(message.sender_full_name, { body: message.type === "private" ? "sent you a direct message" : `mentioned you in #${message.display_recipient}`, tag: String(message.id) });
}

export function initSettings() {
  applyTheme();
  document.getElementById("open-settings").addEventListener("click", () => openSettings());
  bus.on("settings:open", ({ page, streamId }) => openSettings(page, { streamId }));
  bus.on("event:message", notify);
}
