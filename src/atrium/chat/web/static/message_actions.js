// What a person can do to one message: reply with a quote, edit, delete, move or rename its
// topic, resolve the topic, star, react, copy a link, see its edit history and its source.
// The server decides what is allowed (edit limits, policies); its refusal is shown as it says.

import { del, get, patch, post } from "./api.js";
import { clear, el, setServerHtml, showEmoji, toast } from "./dom.js";
import { emojiByName, emojiChar, POPULAR, searchEmoji } from "./emoji.js";
import { markUnreadFromHere, showReadReceipts } from "./message_reading.js";
import { toHash } from "./narrow.js";
import { closeOverlay, field, openDialog, openMenu } from "./overlay.js";
import { canEditTopics, canMoveBetweenStreams } from "./permissions.js";
import { bus, isAdmin, state, userName } from "./state.js";
import { formatDateTime } from "./time.js";

const RESOLVED = "✔ ";

export function messageLink(message) {
  const narrow =
    message.type === "stream"
      ? [
          { operator: "stream", operand: message.stream_id },
          { operator: "topic", operand: message.subject },
          { operator: "near", operand: message.id },
        ]
      : [
          { operator: "dm", operand: message.display_recipient.map((r) => r.id).filter((id) => id !== state.me).sort((a, b) => a - b) },
          { operator: "near", operand: message.id },
        ];
  return `${location.origin}/${toHash(narrow)}`;
}

async function rawContent(message) {
  const body = await get(`/messages/${message.id}`, { apply_markdown: false });
  return body.raw_content ?? body.message?.content ?? "";
}

async function run(promise) {
  try {
    return await promise;
  } catch (error) {
    toast(error.message);
    return null;
  }
}

export function reactionButtons(message) {
  const box = el("div", { class: "reactions", role: "group", "aria-label": "Reactions" });
  const groups = new Map();
  for (const reaction of message.reactions ?? []) {
    const key = `${reaction.reaction_type}:${reaction.emoji_code}`;
    if (!groups.has(key)) groups.set(key, { ...reaction, users: [] });
    groups.get(key).users.push(reaction.user_id);
  }
  for (const group of groups.values()) {
    const mine = group.users.includes(state.me);
    const shown = group.reaction_type === "unicode_emoji" ? emojiChar(group.emoji_code) : `:${group.emoji_name}:`;
    box.append(
      el("button", {
        type: "button",
        class: `reaction${mine ? " mine" : ""}`,
        "aria-pressed": mine ? "true" : "false",
        "aria-label": `${group.emoji_name}: ${group.users.map(userName).join(", ")}`,
        title: group.users.map(userName).join(", "),
        text: `${shown} ${group.users.length}`,
        onclick: () =>
          run(
            (mine ? del : post)(`/messages/${message.id}/reactions`, {
              emoji_name: group.emoji_name,
              emoji_code: group.emoji_code,
              reaction_type: group.reaction_type,
            }),
          ),
      }),
    );
  }
  return box;
}

export function reactionPicker(message) {
  const input = el("input", { type: "search", autocomplete: "off", "aria-label": "Find an emoji" });
  const list = el("div", { class: "emoji-list", role: "listbox", "aria-label": "Emoji" });
  const show = () => {
    clear(list);
    const found = input.value.trim() ? searchEmoji(input.value.trim(), 24) : POPULAR.map(emojiByName).filter(Boolean);
    for (const emoji of found)
      list.append(
        el("button", {
          type: "button",
          class: "emoji-choice",
          role: "option",
          title: `:${emoji.name}:`,
          "aria-label": emoji.name,
          text: emoji.char,
          onclick: async () => {
            closeOverlay();
            await run(post(`/messages/${message.id}/reactions`, { emoji_name: emoji.name }));
          },
        }),
      );
  };
  input.addEventListener("input", show);
  show();
  openDialog("Add a reaction", el("div", {}, input, list));
}

export function editMessage(message, article) {
  rawContent(message).then((raw) => {
    const content = article.querySelector(".message-content");
    const textarea = el("textarea", { class: "edit-box", "aria-label": "Edit message", rows: "4" });
    textarea.value = raw;
    const save = async () => {
      const done = await run(patch(`/messages/${message.id}`, { content: textarea.value }));
      if (done) bus.emit("feed:rerender");
    };
    const form = el(
      "form",
      { class: "edit-form", onsubmit: (e) => (e.preventDefault(), save()) },
      textarea,
      el("div", { class: "row" }, el("button", { type: "submit", class: "primary", text: "Save" }), el("button", { type: "button", text: "Cancel", onclick: () => bus.emit("feed:rerender") })),
    );
    textarea.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        save();
      } else if (event.key === "Escape") {
        event.stopPropagation();
        bus.emit("feed:rerender");
      }
    });
    content.replaceWith(form);
    textarea.focus();
  });
}

export function moveTopic(message) {
  const topic = el("input", { type: "text", value: message.subject, maxlength: String(state.realm.max_topic_length ?? 60), readonly: !canEditTopics() });
  const stream = el("select", { disabled: !canMoveBetweenStreams() });
  for (const sub of [...state.subs.values()].sort((a, b) => a.name.localeCompare(b.name)))
    stream.append(el("option", { value: String(sub.stream_id), selected: sub.stream_id === message.stream_id, text: sub.name }));
  const mode = el(
    "select",
    {},
    el("option", { value: "change_one", text: "Move only this message" }),
    el("option", { value: "change_later", text: "Move this and all following messages in this topic" }),
    el("option", { value: "change_all", text: "Move all messages in this topic", selected: true }),
  );
  const notifyOld = el("input", { type: "checkbox", checked: true });
  const notifyNew = el("input", { type: "checkbox", checked: true });
  const form = el(
    "form",
    { class: "dialog-form" },
    field("Stream", stream),
    field("Topic", topic),
    field("Which messages", mode),
    el("label", { class: "check" }, notifyOld, " Notify the old topic"),
    el("label", { class: "check" }, notifyNew, " Notify the new topic"),
    el("button", { type: "submit", class: "primary", text: "Move" }),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const params = {
      propagate_mode: mode.value,
      send_notification_to_old_thread: notifyOld.checked,
      send_notification_to_new_thread: notifyNew.checked,
    };
    if (topic.value !== message.subject) params.topic = topic.value;
    if (Number(stream.value) !== message.stream_id) params.stream_id = Number(stream.value);
    if (await run(patch(`/messages/${message.id}`, params))) closeOverlay();
  });
  openDialog("Move messages", form);
}

function resolveTopic(message) {
  const resolved = message.subject.startsWith(RESOLVED);
  const topic = resolved ? message.subject.slice(RESOLVED.length) : RESOLVED + message.subject;
  return run(patch(`/messages/${message.id}`, { topic, propagate_mode: "change_all" }));
}

export async function showHistory(message) {
  const body = await run(get(`/messages/${message.id}/history`));
  if (!body) return;
  const list = el("ol", { class: "history" });
  for (const entry of body.message_history) {
    const content = el("div", { class: "rendered" });
    setServerHtml(content, entry.rendered_content ?? "");
    showEmoji(content);
    list.append(
      el(
        "li",
        {},
        el("div", { class: "history-head", text: `${entry.user_id ? userName(entry.user_id) : ""} · ${formatDateTime(entry.timestamp)}` }),
        entry.prev_topic !== undefined ? el("div", { class: "history-topic", text: `Topic: ${entry.prev_topic} → ${entry.topic}` }) : null,
        content,
      ),
    );
  }
  openDialog("Message edit history", list, { wide: true });
}

export async function showSource(message) {
  const raw = await run(rawContent(message));
  if (raw === null) return;
  openDialog("Message source", el("pre", { class: "source", text: raw }), { wide: true });
}

async function copyLink(message) {
  const link = messageLink(message);
  try {
    await navigator.clipboard.writeText(link);
    toast("Link copied");
  } catch {
    const input = el("input", { type: "text", readonly: true, value: link, "aria-label": "Link to this message" });
    openDialog("Link to this message", input);
    input.select();
  }
}

export async function quoteAndReply(message) {
  const raw = await run(rawContent(message));
  if (raw === null) return;
  bus.emit("compose:quote", { message, raw, link: messageLink(message) });
}

export function deleteMessage(message) {
  const confirm = el("button", {
    type: "button",
    class: "danger",
    text: "Delete",
    onclick: async () => {
      if (await run(del(`/messages/${message.id}`))) closeOverlay();
    },
  });
  openDialog("Delete this message?", el("div", {}, el("p", { text: "The message will be removed for everyone." }), confirm));
}

export function openActions(message, article, narrow = []) {
  const mine = message.sender_id === state.me;
  const starred = (message.flags ?? []).includes("starred");
  const isStream = message.type === "stream";
  openMenu(
    article.querySelector(".actions-button") ?? article,
    [
      { label: "Quote and reply", action: () => quoteAndReply(message) },
      state.features.has("reactions") && { label: "Add a reaction", action: () => reactionPicker(message) },
      mine && { label: "Edit message", action: () => editMessage(message, article) },
      isStream && (canEditTopics() || canMoveBetweenStreams()) && { label: "Move message or rename topic", action: () => moveTopic(message) },
      isStream && canEditTopics() && {
        label: message.subject.startsWith(RESOLVED) ? "Mark topic as unresolved" : "Mark topic as resolved",
        action: () => resolveTopic(message),
      },
      { label: starred ? "Unstar message" : "Star message", action: () => run(post("/messages/flags", { messages: [message.id], op: starred ? "remove" : "add", flag: "starred" })) },
      { label: "Copy link to message", action: () => copyLink(message) },
      message.last_edit_timestamp && { label: "View edit history", action: () => showHistory(message) },
      { label: "View message source", action: () => showSource(message) },
      (mine || isAdmin()) && { label: "Delete message", action: () => deleteMessage(message) },
      { label: "Mark as unread from here", action: () => markUnreadFromHere(message, narrow) },
      state.realm.realm_enable_read_receipts && { label: "Read receipts", action: () => showReadReceipts(message) },
    ],
    "Message actions",
  );
}
