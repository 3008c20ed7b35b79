// Typing notifications: sent while the person types (at most every 10 s, "stop" after 5 s
// idle), shown under the feed for the conversation in view, when the server has the typing API.

import { post } from "./api.js";
import { conversationOf } from "./narrow.js";
import { bus, state, userName } from "./state.js";

const available = () => state.features.has("typing");
let lastStart = 0;
let stopTimer = null;
let narrow = [];
const typists = new Map(); // "conversation|user" -> timeout

function params(target, op) {
  // Feature level 185: a stream is named by `to` (a one-element list), as zulip-terminal does.
  if (target.type === "stream") return { op, type: "stream", to: [target.stream_id], topic: target.topic };
  return { op, type: "direct", to: target.user_ids };
}

function valid(target) {
  return target.type === "stream" ? Boolean(target.stream_id && target.topic) : target.user_ids.length > 0;
}

function sendTyping(target, op) {
  if (!available() || !valid(target)) return;
  post("/typing", params(target, op)).catch(() => {});
}

export function typingActivity(target) {
  const now = Date.now();
  if (now - lastStart > 10000) {
    lastStart = now;
    sendTyping(target, "start");
  }
  clearTimeout(stopTimer);
  stopTimer = setTimeout(() => typingStopped(target), 5000);
}

export function typingStopped(target) {
  clearTimeout(stopTimer);
  if (lastStart) {
    lastStart = 0;
    sendTyping(target, "stop");
  }
}

function conversationKey(event) {
  if (event.message_type === "stream" || event.type === "stream" || event.stream_id !== undefined)
    return `s:${event.stream_id}:${(event.topic ?? "").toLowerCase()}`;
  const ids = (event.recipients ?? []).map((r) => r.user_id).filter((id) => id !== state.me);
  return `d:${ids.sort((a, b) => a - b).join(",")}`;
}

function hereKey() {
  const here = conversationOf(narrow);
  if (!here) return null;
  if (here.type === "stream") return `s:${here.stream_id}:${(here.topic ?? "").toLowerCase()}`;
  return `d:${[...here.user_ids].sort((a, b) => a - b).join(",")}`;
}

function show() {
  const node = document.getElementById("typing");
  const key = hereKey();
  const names = [];
  for (const entry of typists.keys()) {
    const [conversation, user] = entry.split("|");
    if (conversation === key) names.push(userName(Number(user)));
  }
  node.textContent = names.length ? `${names.join(", ")} ${names.length === 1 ? "is" : "are"} typing…` : "";
}

export function initTyping() {
  bus.on("feed:opened", (n) => {
    narrow = n;
    show();
  });
  // A message from someone typing ends their typing there, whenever their "stop" comes.
  bus.on("event:message", ({ message }) => {
    const key =
      message.type === "stream"
        ? `s:${message.stream_id}:${message.subject.toLowerCase()}`
        : `d:${message.display_recipient.map((r) => r.id).filter((id) => id !== state.me).sort((a, b) => a - b).join(",")}`;
    const entry = `${key}|${message.sender_id}`;
    if (!typists.has(entry)) return;
    clearTimeout(typists.get(entry));
    typists.delete(entry);
    show();
  });
  bus.on("event:typing", (event) => {
    const sender = event.sender?.user_id;
    if (sender === undefined || sender === state.me) return;
    const key = `${conversationKey(event)}|${sender}`;
    clearTimeout(typists.get(key));
    if (event.op === "start")
      typists.set(
        key,
        setTimeout(() => {
          typists.delete(key);
          show();
        }, 15000),
      );
    else typists.delete(key);
    show();
  });
}
