// Times as the user prefers them (24-hour or not), in the browser's own time zone.

import { twentyFourHour } from "./state.js";

export function formatTime(seconds) {
  return new Date(seconds * 1000).toLocaleTimeString([], {
    hour: "numeric",
    minute: "2-digit",
    hour12: !twentyFourHour(),
  });
}

export function formatDateTime(seconds) {
  const date = new Date(seconds * 1000);
  return `${date.toLocaleDateString([], { year: "numeric", month: "short", day: "numeric" })} ${formatTime(seconds)}`;
}

export function isoTime(seconds) {
  return new Date(seconds * 1000).toISOString();
}
