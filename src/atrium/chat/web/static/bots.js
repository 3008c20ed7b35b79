// The bots this person administers (their own; every bot for administrators): create one,
// see its API key, regenerate the key, download its zuliprc, deactivate it. The list is the
// register response's `realm_bots`, kept current by `realm_bot` events.

import { del, post } from "./api.js";
import { clear, el, toast } from "./dom.js";
import { field } from "./overlay.js";
import { canCreateBots, isAdministrator } from "./permissions.js";
import { bus, state, userName } from "./state.js";

const GENERIC = 1;
const INCOMING_WEBHOOK = 2;
const BOTS_LIMIT_GENERIC = 2;

function bots() {
  return state.realm.realm_bots ?? (state.realm.realm_bots = []);
}

function applyBotEvent(event) {
  const list = bots();
  const index = list.findIndex((b) => b.user_id === event.bot.user_id);
  if (event.op === "add") {
    if (index >= 0) list[index] = event.bot;
    else list.push(event.bot);
  } else if (index < 0) return;
  else if (event.op === "update") Object.assign(list[index], event.bot);
  else if (event.op === "remove") list[index].is_active = false;
  else if (event.op === "delete") list.splice(index, 1);
}

// The file Zulip's clients and bots read their credentials from.
export function zuliprc(bot) {
  return `[api]\nemail=${bot.email}\nkey=${bot.api_key}\nsite=${location.origin}\n`;
}

function download(bot) {
  const url = URL.createObjectURL(new Blob([zuliprc(bot)], { type: "text/plain" }));
  const link = el("a", { href: url, download: "zuliprc", class: "visually-hidden" });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

async function attempt(promise, done) {
  try {
    const body = await promise;
    toast(done);
    return body;
  } catch (error) {
    toast(error.message);
    return null;
  }
}

function createForm() {
  const name = el("input", { type: "text", id: "bot-name", required: true, maxlength: "100" });
  const short = el("input", { type: "text", id: "bot-short-name", required: true, maxlength: "100", placeholder: "helper" });
  const type = el("select", { id: "bot-type" }, el("option", { value: String(GENERIC), text: "Generic bot" }));
  if (state.realm.realm_bot_creation_policy !== BOTS_LIMIT_GENERIC || isAdministrator()) type.append(el("option", { value: String(INCOMING_WEBHOOK), text: "Incoming webhook" }));
  const form = el(
    "form",
    { class: "dialog-form inline", "aria-label": "Add a new bot" },
    field("Bot type", type),
    field("Name", name),
    field("Bot email (before -bot@)", short),
    el("button", { type: "submit", class: "primary", id: "create-bot", text: "Create bot" }),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (await attempt(post("/bots", { full_name: name.value, short_name: short.value, bot_type: Number(type.value) }), "Bot created")) form.reset();
  });
  return form;
}

function botRow(bot) {
  const key = el("code", { class: "api-key", text: bot.api_key });
  return el(
    "li",
    { class: "bot-row", dataset: { botId: String(bot.user_id) } },
    el("div", {}, el("strong", { class: "bot-name", text: bot.full_name }), " ", el("span", { class: "bot-email", text: bot.email })),
    bot.owner_id && bot.owner_id !== state.me ? el("div", { text: `Owner: ${userName(bot.owner_id)}` }) : null,
    el("div", {}, "API key: ", key),
    el(
      "div",
      { class: "row" },
      el("button", { type: "button", text: "Regenerate API key", "aria-label": `Regenerate API key of ${bot.full_name}`, onclick: () => attempt(post(`/bots/${bot.user_id}/api_key/regenerate`), "API key regenerated") }),
      el("button", { type: "button", text: "Download zuliprc", "aria-label": `Download zuliprc of ${bot.full_name}`, onclick: () => download(bot) }),
      el("button", { type: "button", class: "danger", text: "Deactivate", "aria-label": `Deactivate ${bot.full_name}`, onclick: () => attempt(del(`/bots/${bot.user_id}`), "Bot deactivated") }),
    ),
  );
}

let redraw = () => {};

export function botsPage() {
  const list = el("ul", { class: "admin-list bot-list", id: "bot-list", "aria-label": "Your bots" });
  const draw = () => {
    const active = bots().filter((b) => b.is_active !== false);
    clear(list).append(...active.map(botRow));
    if (!active.length) list.append(el("li", { class: "empty", text: "No bots yet." }));
  };
  draw();
  redraw = () => list.isConnected && draw();
  return el("div", {}, canCreateBots() ? createForm() : el("p", { text: "Only administrators may add bots here." }), list);
}

export function initBots() {
  bus.on("event:realm_bot", (event) => {
    applyBotEvent(event);
    redraw();
  });
}
