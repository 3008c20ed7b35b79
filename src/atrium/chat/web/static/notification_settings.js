// Settings → Notifications, as Zulip's: per stream (desktop, sound, email, @all mentions, and
// mobile push only where the server has a push service), the defaults for streams, direct
// messages and mentions, the sound, and the email notifications the server sends.

import { patch, post } from "./api.js";
import { clear, el, toast } from "./dom.js";
import { field } from "./overlay.js";
import { streamSetting } from "./notifications.js";
import { playSound, soundNames } from "./sounds.js";
import { bus, state } from "./state.js";
import { WIKI, watchlistSetting } from "./wiki_settings.js";

const STREAM_COLUMNS = [
  ["desktop_notifications", "enable_stream_desktop_notifications", "Desktop"],
  ["audible_notifications", "enable_stream_audible_notifications", "Sound"],
  ["email_notifications", "enable_stream_email_notifications", "Email"],
  ["push_notifications", "enable_stream_push_notifications", "Mobile"],
  ["wildcard_mentions_notify", "wildcard_mentions_notify", "@all mentions"],
];
const BATCHING = [
  [120, "2 minutes"],
  [300, "5 minutes"],
  [600, "10 minutes"],
  [1800, "30 minutes"],
  [3600, "1 hour"],
  [21600, "6 hours"],
  [86400, "1 day"],
  [604800, "1 week"],
];
const REALM_NAME_IN_EMAIL = [
  [1, "Automatic"],
  [2, "Always"],
  [3, "Never"],
];

const pushAvailable = () => Boolean(state.realm.realm_push_notifications_enabled);

// One setting changed: shown at once, then stored (PATCH /settings); undone if refused.
async function changeSetting(property, value) {
  const previous = state.settings[property];
  state.settings[property] = value;
  try {
    await patch("/settings", { [property]: value });
  } catch (error) {
    state.settings[property] = previous;
    toast(error.message);
    sync();
  }
}

async function changeStream(sub, property, value) {
  try {
    await post("/users/me/subscriptions/properties", { subscription_data: [{ stream_id: sub.stream_id, property, value }] });
  } catch (error) {
    toast(error.message);
    sync();
  }
}

function checkbox(label, checked, onchange, extra = {}) {
  const box = el("input", { type: "checkbox", checked, "aria-label": label, ...extra });
  box.addEventListener("change", () => onchange(box.checked));
  return box;
}

function check(id, text, property) {
  const box = el("input", { type: "checkbox", id, checked: Boolean(state.settings[property]), dataset: { setting: property } });
  box.addEventListener("change", () => changeSetting(property, box.checked));
  return el("label", { class: "check" }, box, " " + text);
}

function choice(id, label, property, pairs) {
  const select = el("select", { id, dataset: { setting: property } });
  for (const [value, text] of pairs) select.append(el("option", { value: String(value), selected: value === state.settings[property], text }));
  select.addEventListener("change", () => changeSetting(property, typeof pairs[0][0] === "number" ? Number(select.value) : select.value));
  return field(label, select);
}

function streamTable() {
  const columns = STREAM_COLUMNS.filter(([property]) => property !== "push_notifications" || pushAvailable());
  const head = el("tr", {}, el("th", { scope: "col", text: "Stream" }), columns.map(([, , title]) => el("th", { scope: "col", text: title })));
  const defaults = el(
    "tr",
    { class: "defaults-row" },
    el("th", { scope: "row", text: "Default for streams" }),
    columns.map(([, setting, title]) => el("td", {}, checkbox(`${title}: default for streams`, Boolean(state.settings[setting]), (on) => changeSetting(setting, on), { id: `default-${setting}`, dataset: { setting } }))),
  );
  const rows = [...state.subs.values()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((sub) =>
      el(
        "tr",
        { dataset: { streamId: String(sub.stream_id) } },
        el("th", { scope: "row", text: sub.name }),
        columns.map(([property, , title]) => el("td", {}, checkbox(`${title}: ${sub.name}`, streamSetting(sub, property), (on) => changeStream(sub, property, on), { dataset: { streamId: String(sub.stream_id), property } }))),
      ),
    );
  return el("table", { class: "admin-table notification-table", id: "stream-notifications" }, el("thead", {}, head), el("tbody", {}, defaults, rows));
}

function desktopPermission() {
  const supported = "Notification" in window;
  const box = el("input", { type: "checkbox", id: "setting-desktop", checked: supported && state.settings.enable_desktop_notifications !== false && Notification.permission === "granted", disabled: !supported });
  box.addEventListener("change", async () => {
    if (box.checked && Notification.permission !== "granted") {
      const answer = await Notification.requestPermission();
      if (answer !== "granted") {
        box.checked = false;
        toast("The browser did not allow notifications.");
        return;
      }
    }
    changeSetting("enable_desktop_notifications", box.checked);
  });
  return el("label", { class: "check" }, box, " Desktop notifications", supported ? null : " (this browser has none)");
}

function soundChoice() {
  const names = state.settings.available_notification_sounds ?? soundNames();
  const select = el("select", { id: "setting-sound", dataset: { setting: "notification_sound" } }, el("option", { value: "none", text: "None" }), names.map((n) => el("option", { value: n, text: n })));
  select.value = state.settings.notification_sound ?? "zulip";
  select.addEventListener("change", () => {
    changeSetting("notification_sound", select.value);
    playSound(select.value);
  });
  const play = el("button", { type: "button", id: "play-sound", text: "Play", "aria-label": "Play the notification sound", onclick: () => playSound(select.value) });
  return el("div", { class: "row" }, field("Notification sound", select), play);
}

function page() {
  return [
    el("h3", { text: "Streams" }),
    el("p", { class: "hint", text: "A stream's own choice wins over the default for streams." }),
    streamTable(),
    el("h3", { text: "Direct messages, mentions and alerts" }),
    el(
      "div",
      { class: "dialog-form" },
      desktopPermission(),
      check("setting-sounds", "Sounds", "enable_sounds"),
      check("setting-offline-email", "Email notifications when I am away", "enable_offline_email_notifications"),
      pushAvailable() ? check("setting-offline-push", "Mobile notifications when I am away", "enable_offline_push_notifications") : null,
      pushAvailable() ? check("setting-online-push", "Mobile notifications even when I am online", "enable_online_push_notifications") : null,
      check("setting-pm-content", "Show the text of direct messages in desktop notifications", "pm_content_in_desktop_notifications"),
      soundChoice(),
    ),
    el("h3", { text: "Email" }),
    el(
      "div",
      { class: "dialog-form" },
      choice("setting-email-batching", "Wait before sending an email notification", "email_notifications_batching_period_seconds", BATCHING),
      check("setting-email-content", "Include the message's text in email notifications", "message_content_in_email_notifications"),
      choice("setting-realm-name-in-email", "Organization name in the subject of email notifications", "realm_name_in_email_notifications_policy", REALM_NAME_IN_EMAIL),
      check("setting-digest", "Digest emails while I am away", "enable_digest_emails"),
      check("setting-login-emails", "An email when someone signs in to my account", "enable_login_emails"),
      check("setting-marketing-emails", "Emails about new features", "enable_marketing_emails"),
    ),
  ];
}

let holder = null;

function setValue(input, value) {
  if (input.type === "checkbox") input.checked = Boolean(value);
  else input.value = String(value);
}

// Brings the controls in line with the state (a change from another browser, or one the server
// refused), in place, so the focus stays where it is.
function sync() {
  if (!holder?.isConnected) return;
  for (const input of holder.querySelectorAll("[data-setting]")) {
    if (input.id === "setting-desktop") continue;
    setValue(input, state.settings[input.dataset.setting]);
  }
  for (const input of holder.querySelectorAll("[data-property]")) setValue(input, streamSetting(state.subs.get(Number(input.dataset.streamId)), input.dataset.property));
}

export function notificationsPage() {
  holder = el("div", { class: "notification-settings" }, ...page());
  // Beside a wiki: the person's watchlist notifications, kept by Atrium's own endpoint.
  return WIKI ? el("div", {}, holder, watchlistSetting()) : holder;
}

export function initNotificationSettings() {
  bus.on("event:subscription", sync);
  bus.on("event:user_settings", sync);
}
