// The compose box: a stream and topic or DM recipients, markdown with a server-rendered
// preview, Enter to send (Shift+Enter for a new line), local echo (`queue_id` + `local_id`),
// the draft kept on the server while typing, "send later" as a scheduled message, and files
// attached through the uploads API when the server offers it.

import { ApiError, del, patch, post } from "./api.js";
import { clear, el, setServerHtml, showEmoji, toast } from "./dom.js";
import { ALL, conversationOf } from "./narrow.js";
import { closeOverlay, field, openDialog } from "./overlay.js";
import { loadOutbox, sendMessage } from "./outbox.js";
import { bus, state, userName } from "./state.js";
import { attachTypeahead } from "./typeahead.js";
import { attachCompletion, peopleMatching, topicsMatching } from "./compose_completion.js";
import { typingActivity, typingStopped } from "./typing.js";

const compose = {
  open: false,
  type: "stream",
  recipients: [], // DM user ids
  draftId: null,
  narrow: ALL,
};

let ui = null;
let draftTimer = null;

function subscribedStreams() {
  return [...state.subs.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function build() {
  const root = document.getElementById("compose");
  const streamSelect = el("select", { id: "compose-stream", "aria-label": "Stream" });
  const topicInput = el("input", { id: "compose-topic", type: "text", placeholder: "Topic", "aria-label": "Topic", autocomplete: "off" });
  const chips = el("span", { class: "chips" });
  const dmInput = el("input", { id: "compose-dm", type: "text", placeholder: "Add a person", "aria-label": "Direct message recipients", autocomplete: "off" });
  const textarea = el("textarea", { id: "compose-textarea", rows: "3", placeholder: "Message (Enter to send, Shift+Enter for a new line)", "aria-label": "Message" });
  const preview = el("div", { class: "compose-preview rendered", hidden: true, "aria-label": "Preview", role: "region" });
  const fileInput = el("input", { type: "file", hidden: true, id: "compose-file" });
  const streamRow = el("div", { class: "recipient-row stream-row" }, streamSelect, el("span", { class: "bar-sep", text: "›" }), topicInput);
  const dmRow = el("div", { class: "recipient-row dm-row", hidden: true }, el("span", { text: "To: " }), chips, dmInput);
  const form = el(
    "form",
    { class: "compose-form", hidden: true },
    el(
      "div",
      { class: "compose-tabs", role: "tablist" },
      el("button", { type: "button", role: "tab", id: "compose-tab-stream", text: "Stream message", onclick: () => setType("stream") }),
      el("button", { type: "button", role: "tab", id: "compose-tab-dm", text: "Direct message", onclick: () => setType("private") }),
      el("button", { type: "button", class: "icon-button compose-close", "aria-label": "Close the compose box", text: "✕", onclick: () => closeCompose() }),
    ),
    streamRow,
    dmRow,
    textarea,
    preview,
    el(
      "div",
      { class: "compose-buttons" },
      el("button", { type: "submit", class: "primary", id: "compose-send", text: "Send" }),
      el("button", { type: "button", id: "compose-preview", text: "Preview", onclick: togglePreview }),
      el("button", { type: "button", id: "compose-later", text: "Send later", onclick: sendLater }),
      el("button", { type: "button", id: "compose-attach", text: "Attach a file", hidden: true, onclick: () => fileInput.click() }),
      fileInput,
      el("span", { class: "compose-status", role: "status", "aria-live": "polite" }),
    ),
  );
  const closed = el(
    "div",
    { class: "compose-closed" },
    el("button", { type: "button", id: "new-topic-message", text: "New topic message (c)", onclick: () => openCompose() }),
    el("button", { type: "button", id: "new-dm", text: "New direct message (x)", onclick: () => openCompose({ type: "private", user_ids: [] }) }),
  );
  clear(root).append(closed, form);
  ui = { root, form, closed, streamSelect, topicInput, chips, dmInput, textarea, preview, fileInput, streamRow, dmRow };
  const typeahead = attachTypeahead(textarea);
  attachCompletion(dmInput, { id: "compose-dm-suggestions", source: (text) => peopleMatching(text, compose.recipients), render: (u) => [u.full_name, el("span", { class: "detail", text: " " + u.email })], pick: addRecipient });
  const pickTopic = (topic) => {
    topicInput.value = topic;
    scheduleDraftSave();
    textarea.focus();
  };
  attachCompletion(topicInput, { id: "compose-topic-suggestions", source: (text) => topicsMatching(Number(streamSelect.value), text), render: (t) => [t], pick: pickTopic });

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    send();
  });
  textarea.addEventListener("keydown", (event) => {
    if (typeahead.key(event)) return;
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send();
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      closeCompose();
    }
  });
  for (const input of [textarea, topicInput])
    input.addEventListener("input", () => {
      scheduleDraftSave();
      if (input === textarea) typingActivity(target());
    });
  streamSelect.addEventListener("change", scheduleDraftSave);
  dmInput.addEventListener("change", () => addRecipientFrom(dmInput.value));
  dmInput.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === ",") {
      event.preventDefault();
      addRecipientFrom(dmInput.value);
    } else if (event.key === "Backspace" && !dmInput.value && compose.recipients.length) {
      compose.recipients.pop();
      renderRecipients();
    }
  });
  fileInput.addEventListener("change", upload);
}

function refreshStreams() {
  if (!ui) return;
  const current = ui.streamSelect.value;
  clear(ui.streamSelect);
  for (const sub of subscribedStreams()) ui.streamSelect.append(el("option", { value: String(sub.stream_id), text: sub.name }));
  if (current) ui.streamSelect.value = current;
  document.getElementById("compose-attach").hidden = !state.features.has("uploads");
}

function addRecipientFrom(text) {
  const wanted = text.trim().toLowerCase();
  if (!wanted) return;
  const user =
    [...state.users.values()].find((u) => u.is_active !== false && (u.email.toLowerCase() === wanted || u.full_name.toLowerCase() === wanted)) ??
    peopleMatching(wanted, compose.recipients)[0];
  if (!user) return toast(`No one called ${text.trim()}`);
  addRecipient(user);
}

function addRecipient(user) {
  if (!compose.recipients.includes(user.user_id)) compose.recipients.push(user.user_id);
  ui.dmInput.value = "";
  renderRecipients();
  scheduleDraftSave();
}

function renderRecipients() {
  clear(ui.chips);
  for (const id of compose.recipients)
    ui.chips.append(
      el(
        "span",
        { class: "chip" },
        userName(id),
        el("button", {
          type: "button",
          class: "chip-remove",
          "aria-label": `Remove ${userName(id)}`,
          text: "×",
          onclick: () => {
            compose.recipients = compose.recipients.filter((r) => r !== id);
            renderRecipients();
          },
        }),
      ),
    );
}

function setType(type) {
  compose.type = type;
  ui.streamRow.hidden = type !== "stream";
  ui.dmRow.hidden = type === "stream";
  document.getElementById("compose-tab-stream").setAttribute("aria-selected", String(type === "stream"));
  document.getElementById("compose-tab-dm").setAttribute("aria-selected", String(type !== "stream"));
}

function target() {
  if (compose.type === "stream") return { type: "stream", stream_id: Number(ui.streamSelect.value), topic: ui.topicInput.value };
  return { type: "private", user_ids: [...compose.recipients] };
}

function draftFor(conversation) {
  let best = null;
  for (const draft of state.drafts.values()) {
    const same =
      conversation.type === "stream"
        ? draft.type === "stream" && draft.to[0] === conversation.stream_id && draft.topic === conversation.topic
        : draft.type === "private" && [...draft.to].sort().join(",") === [...conversation.user_ids].sort().join(",");
    if (same && (!best || draft.timestamp > best.timestamp)) best = draft;
  }
  return best;
}

export function openCompose(conversation, { content, draft } = {}) {
  conversation = conversation ?? conversationOf(compose.narrow) ?? { type: "stream", stream_id: subscribedStreams()[0]?.stream_id, topic: "" };
  compose.open = true;
  ui.closed.hidden = true;
  ui.form.hidden = false;
  setType(conversation.type === "stream" ? "stream" : "private");
  if (conversation.type === "stream") {
    if (conversation.stream_id) ui.streamSelect.value = String(conversation.stream_id);
    ui.topicInput.value = conversation.topic ?? "";
  } else compose.recipients = [...(conversation.user_ids ?? [])];
  renderRecipients();
  const saved = draft ?? (content === undefined && ui.textarea.value === "" ? draftFor(conversation) : null);
  compose.draftId = saved?.id ?? null;
  if (saved) ui.textarea.value = saved.content;
  if (content !== undefined) ui.textarea.value = content;
  const focusTopic = conversation.type === "stream" && !ui.topicInput.value && content === undefined;
  (focusTopic ? ui.topicInput : conversation.type === "stream" || compose.recipients.length ? ui.textarea : ui.dmInput).focus();
}

export function closeCompose() {
  if (!ui) return;
  // The text is read before the box is cleared; the browser's copy goes once Drafts has it.
  saveDraftNow().then((saved) => {
    if (saved && !compose.open) keepLocally();
  });
  typingStopped(target());
  compose.open = false;
  if (ui.form.contains(document.activeElement)) document.getElementById("feed").focus({ preventScroll: true });
  ui.form.hidden = true;
  ui.closed.hidden = false;
  ui.preview.hidden = true;
  ui.textarea.value = "";
  compose.draftId = null;
}

// Where the open compose box sends to (null when closed).
export const composeTarget = () => (compose.open ? target() : null);

export function isComposeOpen() {
  return compose.open;
}

function status(text) {
  ui.form.querySelector(".compose-status").textContent = text;
}

// --- drafts (kept on the server, so they follow the person to another browser) -----------

function draftObject() {
  const t = target();
  return {
    type: t.type,
    to: t.type === "stream" ? (t.stream_id ? [t.stream_id] : []) : t.user_ids,
    topic: t.type === "stream" ? t.topic : "",
    content: ui.textarea.value,
    timestamp: Math.floor(Date.now() / 1000),
  };
}

function scheduleDraftSave() {
  keepLocally();
  clearTimeout(draftTimer);
  draftTimer = setTimeout(saveDraftNow, 600);
}

async function saveDraftNow() {
  clearTimeout(draftTimer);
  draftTimer = null;
  if (!ui || !compose.open) return false;
  const draft = draftObject();
  try {
    if (!draft.content.trim()) {
      if (compose.draftId !== null) {
        const id = compose.draftId;
        compose.draftId = null;
        await del(`/drafts/${id}`);
      }
      return true;
    }
    if (compose.draftId !== null) await patch(`/drafts/${compose.draftId}`, { draft });
    else {
      const body = await post("/drafts", { drafts: [draft] });
      compose.draftId = body.ids[0];
    }
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) compose.draftId = null;
    else status("Draft not saved: " + error.message);
    return false;
  }
}

// --- sending -----------------------------------------------------------------------------

function sendParams() {
  const t = target();
  const params = { content: ui.textarea.value };
  if (t.type === "stream") Object.assign(params, { type: "stream", to: t.stream_id, topic: t.topic });
  else Object.assign(params, { type: "direct", to: t.user_ids });
  return params;
}

async function send() {
  const content = ui.textarea.value;
  if (!content.trim()) return status("Nothing to send yet.");
  if (compose.type === "private" && ui.dmInput.value.trim()) addRecipientFrom(ui.dmInput.value);
  if (compose.type === "private" && !compose.recipients.length) return status("Add at least one recipient.");
  const params = sendParams();
  const t = target();
  const draftId = compose.draftId;
  clearTimeout(draftTimer);
  compose.draftId = null;
  ui.textarea.value = "";
  keepLocally();
  ui.preview.hidden = true;
  status("");
  // The typing "stop" goes after the message: sent first, its event would reach the others'
  // long polls first, and each would poll again before it could show the message.
  const outcome = await sendMessage(params, t, content, draftId);
  typingStopped(t);
  if (outcome.refused) restoreRefused(content, draftId, outcome.refused);
  else if (outcome.failed) status("Not sent: " + outcome.failed.message);
}

// A message the server refused goes back into the compose box (unless something new was typed
// there since), with the server's reason.
function restoreRefused(content, draftId, error) {
  if (!ui.textarea.value.trim()) {
    ui.textarea.value = content;
    compose.draftId = draftId;
    keepLocally();
  }
  status("Not sent: " + error.message);
}

// --- the compose box in this browser's storage -------------------------------------------
// Typed text survives a reload, an expired session and a server that cannot be reached, even
// when the server-side draft could not be saved.

const localKey = () => `atrium.compose.${state.me}`;

function keepLocally() {
  if (!ui || state.me === null) return;
  try {
    if (ui.textarea.value.trim()) localStorage.setItem(localKey(), JSON.stringify({ conversation: target(), content: ui.textarea.value }));
    else localStorage.removeItem(localKey());
  } catch {
    // Storage refused: the server-side draft is still saved while typing.
  }
}

let restored = false;

function restoreOnce() {
  if (restored) return;
  restored = true;
  loadOutbox();
  restoreLocal();
}

function restoreLocal() {
  let kept = null;
  try {
    kept = JSON.parse(localStorage.getItem(localKey()) ?? "null");
  } catch {
    kept = null;
  }
  if (!kept?.content || ui.textarea.value.trim()) return;
  const conversation = kept.conversation.type === "stream" && !state.subs.has(kept.conversation.stream_id) ? undefined : kept.conversation;
  openCompose(conversation, { content: kept.content });
}

async function togglePreview() {
  if (!ui.preview.hidden) {
    ui.preview.hidden = true;
    return;
  }
  try {
    const body = await post("/messages/render", { content: ui.textarea.value || " " });
    setServerHtml(ui.preview, body.rendered);
    showEmoji(ui.preview);
    ui.preview.hidden = false;
  } catch (error) {
    status(error.message);
  }
}

function sendLater() {
  if (!ui.textarea.value.trim()) return status("Nothing to schedule yet.");
  const when = el("input", { type: "datetime-local", required: true, step: "1", id: "schedule-at" });
  const soon = new Date(Date.now() + 3600 * 1000);
  soon.setSeconds(0, 0);
  when.value = new Date(soon.getTime() - soon.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
  const form = el("form", { class: "dialog-form" }, field("Send at", when), el("button", { type: "submit", class: "primary", text: "Schedule" }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const params = sendParams();
    const timestamp = Math.floor(new Date(when.value).getTime() / 1000);
    try {
      await post("/scheduled_messages", { ...params, scheduled_delivery_timestamp: timestamp });
      closeOverlay();
      const draftId = compose.draftId;
      compose.draftId = null;
      if (draftId !== null) del(`/drafts/${draftId}`).catch(() => {});
      ui.textarea.value = "";
      keepLocally();
      toast("Message scheduled");
    } catch (error) {
      toast(error.message);
    }
  });
  openDialog("Schedule this message", form);
}

async function upload() {
  const file = ui.fileInput.files[0];
  if (!file) return;
  const data = new FormData();
  data.append("file", file);
  status(`Uploading ${file.name}…`);
  try {
    const body = await post("/user_uploads", data);
    const url = body.url ?? body.uri;
    const name = file.name.replace(/[[\]]/g, "");
    const at = ui.textarea.selectionStart ?? ui.textarea.value.length;
    const before = ui.textarea.value.slice(0, at);
    const after = ui.textarea.value.slice(at);
    // On a line of its own, as Zulip inserts it: never glued to the words around it.
    const insert = `${before && !before.endsWith("\n") ? "\n" : ""}[${name}](${url})${after && !after.startsWith("\n") ? "\n" : ""}`;
    ui.textarea.value = before + insert + after;
    ui.textarea.selectionStart = ui.textarea.selectionEnd = before.length + insert.length;
    status("");
    scheduleDraftSave();
  } catch (error) {
    status("Upload failed: " + error.message);
  }
  ui.fileInput.value = "";
}

// --- wiring ------------------------------------------------------------------------------

export function initCompose() {
  build();
  refreshStreams();
  setType("stream");
  bus.on("state", refreshStreams);
  bus.on("state", restoreOnce);
  bus.on("outbox:refused", ({ entry, error }) => {
    if (!ui.textarea.value.trim()) openCompose(entry.target, { content: entry.content });
    status("Not sent: " + error.message);
  });
  bus.on("event:subscription", refreshStreams);
  bus.on("event:realm_user", refreshStreams);
  bus.on("feed:opened", (narrow) => {
    compose.narrow = narrow;
  });
  bus.on("compose:open", ({ conversation, content, draft }) => openCompose(conversation, { content, draft }));
  bus.on("compose:quote", ({ message, raw, link }) => {
    const conversation =
      message.type === "stream"
        ? { type: "stream", stream_id: message.stream_id, topic: message.subject }
        : { type: "private", user_ids: message.display_recipient.map((r) => r.id).filter((id) => id !== state.me) };
    const quoted = `@_**${message.sender_full_name}|${message.sender_id}** [said](${link}):\n\`\`\`quote\n${raw}\n\`\`\`\n`;
    openCompose(conversation, { content: (ui.textarea.value ? ui.textarea.value + "\n" : "") + quoted });
  });
  bus.on("compose:reply", (message) => {
    const conversation =
      message.type === "stream"
        ? { type: "stream", stream_id: message.stream_id, topic: message.subject }
        : { type: "private", user_ids: message.display_recipient.map((r) => r.id).filter((id) => id !== state.me) };
    openCompose(conversation);
  });
}
