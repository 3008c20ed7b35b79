// Times as the user prefers them (24-hour or not), in the browser's own time zone.

import { twentyFourHour } from "./state.js";

// `toLocaleTimeString` with options builds a new formatter on every call, which cost most of a
// feed's render (three per message); these are built once per setting and reused.
const formatters = new Map();

function formatter(key, options) {
  let format = formatters.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat([], options);
    formatters.set(key, format);
  }
  return format;
}

export function formatTime(seconds) {
  const hour12 = !twentyFourHour();
  return formatter(hour12 ? "time12" : "time24", { hour: "numeric", minute: "2-digit", hour12 }).format(seconds * 1000);
}

export function formatDateTime(seconds) {
  const date = formatter("date", { year: "numeric", month: "short", day: "numeric" }).format(seconds * 1000);
  return `${date} ${formatTime(seconds)}`;
}

export function isoTime(seconds) {
  return new Date(seconds * 1000).toISOString();
}
