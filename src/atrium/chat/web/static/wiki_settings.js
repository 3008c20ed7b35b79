// The administrators' "Wiki" settings page, shown when the chat runs beside a wiki: the rules
// that post the wiki's changes to streams, and the stream whose topics discuss the wiki's pages
// (each page's Chat tab). Atrium's own endpoints (/atrium/...), none of Zulip's.

import { del, get, patch, post } from "./api.js";
import { clear, el, toast } from "./dom.js";
import { field } from "./overlay.js";
import { state } from "./state.js";

export const WIKI = globalThis.document?.querySelector('meta[name="atrium-wiki"]')?.content ?? "";
const SCOPES = [
  ["all", "Every page"],
  ["namespace", "A namespace"],
  ["category", "A category"],
  ["page", "One page"],
];
const EVENTS = [
  ["create", "New pages"],
  ["edit", "Edits"],
  ["move", "Moves"],
  ["delete", "Deletions"],
  ["upload", "Uploads"],
];

async function attempt(promise, done) {
  try {
    const body = await promise;
    if (done) toast(done);
    return body;
  } catch (error) {
    toast(error.message);
    return null;
  }
}

function streamSelect(id, withNone) {
  const select = el("select", { id });
  if (withNone) select.append(el("option", { value: "0", text: "None" }));
  for (const stream of [...state.streams.values()].sort((a, b) => a.name.localeCompare(b.name)))
    select.append(el("option", { value: String(stream.stream_id), text: stream.name }));
  return select;
}

function streamName(id) {
  return state.streams.get(id)?.name ?? `stream ${id}`;
}

function discussionForm() {
  const select = streamSelect("wiki-discussion-stream", true);
  const form = el(
    "form",
    { class: "dialog-form inline", "aria-label": "Discussion stream" },
    field("Stream discussing the wiki's pages", select),
    el("button", { type: "submit", class: "primary", text: "Save" }),
  );
  get("/atrium/workspace_settings").then(
    (body) => (select.value = String(body.discussion_stream_id)),
    (error) => toast(error.message),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await attempt(patch("/atrium/workspace_settings", { discussion_stream_id: Number(select.value) }), "Discussion stream saved");
  });
  return form;
}

function rulesList(holder) {
  const draw = async () => {
    const body = await attempt(get("/atrium/wiki_feed/rules"));
    if (!body) return;
    const list = el("ul", { class: "admin-list", id: "wiki-feed-rules" });
    for (const rule of body.rules) {
      const scope = rule.scope === "all" ? "every page" : `${rule.scope} ${rule.target}`;
      const topic = rule.topic ? ` > ${rule.topic}` : "";
      list.append(
        el(
          "li",
          { class: "wiki-feed-rule" },
          `${rule.events.join(", ")} of ${scope} → #${streamName(rule.stream_id)}${topic} `,
          el("button", { type: "button", class: "danger", text: "Delete", onclick: async () => (await attempt(del(`/atrium/wiki_feed/rules/${rule.id}`), "Rule deleted")) && draw() }),
        ),
      );
    }
    clear(holder).append(list);
  };
  draw();
  return draw;
}

function ruleForm(redraw) {
  const stream = streamSelect("wiki-rule-stream", false);
  const scope = el("select", { id: "wiki-rule-scope" });
  for (const [value, label] of SCOPES) scope.append(el("option", { value, text: label }));
  const target = el("input", { type: "text", id: "wiki-rule-target", maxlength: "300", placeholder: "Help, Category:Plans or a page title" });
  const topic = el("input", { type: "text", id: "wiki-rule-topic", maxlength: "60", placeholder: "The page's title" });
  const boxes = EVENTS.map(([value, label]) => [value, el("input", { type: "checkbox", value, checked: true })]);
  const form = el(
    "form",
    { class: "dialog-form", "aria-label": "Add a wiki feed rule" },
    field("Post to stream", stream),
    field("Changes of", scope),
    field("Namespace, category or page", target),
    field("Topic", topic),
    el("fieldset", {}, el("legend", { text: "Changes" }), boxes.map(([, box], i) => el("label", { class: "check" }, box, " " + EVENTS[i][1]))),
    el("button", { type: "submit", class: "primary", id: "wiki-rule-add", text: "Add rule" }),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const events = boxes.filter(([, box]) => box.checked).map(([value]) => value);
    const params = { stream_id: Number(stream.value), scope: scope.value, target: target.value, topic: topic.value, events };
    if (await attempt(post("/atrium/wiki_feed/rules", params), "Rule added")) {
      target.value = "";
      topic.value = "";
      redraw();
    }
  });
  return form;
}

export function wikiPage() {
  const holder = el("div", { class: "admin-page" });
  const redraw = rulesList(holder);
  return el(
    "div",
    {},
    discussionForm(),
    el("h3", { text: "Wiki changes posted to chat" }),
    holder,
    ruleForm(redraw),
  );
}

// Each person's own: a direct message when a page on their wiki watchlist changes (off until
// they turn it on, as MediaWiki's e-mail notification of watched pages).
export function watchlistSetting() {
  const box = el("input", { type: "checkbox", id: "setting-wiki-watchlist", disabled: true });
  get("/atrium/notification_settings").then(
    (body) => {
      box.checked = body.wiki_watchlist_pages;
      box.disabled = false;
    },
    (error) => toast(error.message),
  );
  box.addEventListener("change", async () => {
    const saved = await attempt(patch("/atrium/notification_settings", { wiki_watchlist_pages: box.checked }), "Saved");
    if (!saved) box.checked = !box.checked;
  });
  return el("label", { class: "check" }, box, " A direct message when a page on my wiki watchlist changes");
}
