// Which new messages notify, as Zulip decides it: direct messages and mentions by the personal
// settings; wildcard mentions only where wildcard-mention notifications are on; other stream
// messages by each stream's own setting, or the default for streams. Desktop notifications and
// sounds each follow their own settings, for messages the person is not looking at.

import { inView } from "./feed.js";
import { toHash } from "./narrow.js";
import { playSound } from "./sounds.js";
import { bus, state, topicKey } from "./state.js";

const MUTED_TOPIC = 1;

// A stream's notification setting: its own value, or the person's default for streams.
export function streamSetting(sub, property) {
  const own = sub?.[property];
  if (own !== null && own !== undefined) return Boolean(own);
  const defaults = {
    desktop_notifications: "enable_stream_desktop_notifications",
    audible_notifications: "enable_stream_audible_notifications",
    email_notifications: "enable_stream_email_notifications",
    push_notifications: "enable_stream_push_notifications",
    wildcard_mentions_notify: "wildcard_mentions_notify",
  };
  return Boolean(state.settings[defaults[property]]);
}

// "desktop" or "audible": does this message call for it?
export function notifies(message, flags, kind) {
  if (message.sender_id === state.me) return false;
  const personal = kind === "desktop" ? state.settings.enable_desktop_notifications !== false : state.settings.enable_sounds !== false;
  if (message.type === "private" || flags.includes("mentioned")) return personal;
  const sub = state.subs.get(message.stream_id);
  if (!sub || sub.is_muted || state.userTopics.get(topicKey(message.stream_id, message.subject)) === MUTED_TOPIC) return false;
  if (flags.includes("wildcard_mentioned") && streamSetting(sub, "wildcard_mentions_notify")) return personal;
  return streamSetting(sub, kind === "desktop" ? "desktop_notifications" : "audible_notifications");
}

// Not in front of the person: another tab or window, a view that is no feed of messages
// (Drafts, Scheduled: their hashes are not narrows), or a narrow without it.
async function unseen(message) {
  const hash = location.hash || "#all_messages";
  const feedShown = hash === "#all_messages" || hash.startsWith("#narrow/");
  return !(document.visibilityState === "visible" && document.hasFocus() && feedShown && (await inView(message.id)));
}

function describeWhere(message, flags) {
  if (message.type === "private") return "sent you a direct message";
  const where = `#${message.display_recipient} > ${message.subject}`;
  return flags.includes("mentioned") || flags.includes("wildcard_mentioned") ? `mentioned you in ${where}` : where;
}

async function onMessage(event) {
  const message = event.message;
  const flags = event.flags ?? [];
  const desktop = notifies(message, flags, "desktop") && "Notification" in window && Notification.permission === "granted";
  const audible = notifies(message, flags, "audible") && (state.settings.notification_sound ?? "zulip") !== "none";
  if (!desktop && !audible) return;
  if (!(await unseen(message))) return;
  if (audible) playSound(state.settings.notification_sound ?? "zulip");
  if (desktop) {
    const hideContent = message.type === "private" && state.settings.pm_content_in_desktop_notifications === false;
    const where = describeWhere(message, flags);
    const body = hideContent ? where : `${where}: ${textOf(message.content)}`;
    const note = new Notification(message.sender_full_name, { body, tag: String(message.id) });
    note.onclick = () => {
      window.focus();
      location.hash = toHash([{ operator: "near", operand: message.id }]);
    };
  }
}

// The rendered message as plain text; an inert document runs no script and loads nothing.
function textOf(html) {
  const text = new DOMParser().parseFromString(html ?? "", "text/html").body.textContent ?? "";
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

export function initNotifications() {
  bus.on("event:message", onMessage);
}
