// Completion for the compose box's one-line fields: direct-message recipients from partial
// names or emails, and topics from the chosen stream's topics (newest first). Arrow keys move,
// Enter or Tab picks, Esc closes; Enter with no list open takes the first match, as Zulip's
// recipient box does.

import { get } from "./api.js";
import { clear, el } from "./dom.js";
import { bus, state } from "./state.js";

// People ranked as Zulip's typeahead ranks them: the query starting the full name, then
// starting a word of the name or the email, then anywhere in either.
export function peopleMatching(query, exclude = [], limit = 8) {
  const wanted = query.trim().toLowerCase();
  if (!wanted) return [];
  const ranked = [];
  for (const user of state.users.values()) {
    if (user.is_active === false || user.user_id === state.me || exclude.includes(user.user_id)) continue;
    const name = user.full_name.toLowerCase();
    const email = user.email.toLowerCase();
    let rank = null;
    if (name.startsWith(wanted)) rank = 0;
    else if (name.split(/\s+/).some((w) => w.startsWith(wanted)) || email.startsWith(wanted)) rank = 1;
    else if (name.includes(wanted) || email.includes(wanted)) rank = 2;
    if (rank !== null) ranked.push([rank, user]);
  }
  ranked.sort(([a, x], [b, y]) => a - b || x.full_name.localeCompare(y.full_name));
  return ranked.slice(0, limit).map(([, user]) => user);
}

const topics = new Map(); // stream id -> promise of topic names, newest first

// A message in a topic not yet known puts it first (the newest).
bus.on("event:message", ({ message }) => {
  if (message.type !== "stream" || !topics.has(message.stream_id)) return;
  topics.set(
    message.stream_id,
    topics.get(message.stream_id).then((names) => [message.subject, ...names.filter((n) => n.toLowerCase() !== message.subject.toLowerCase())]),
  );
});
bus.on("event:update_message", (event) => event.stream_id && topics.delete(event.stream_id));

async function streamTopics(streamId) {
  if (!state.features.has("topics") || !streamId) return [];
  if (!topics.has(streamId))
    topics.set(
      streamId,
      get(`/users/me/${streamId}/topics`).then(
        (body) => body.topics.map((t) => t.name),
        () => {
          topics.delete(streamId);
          return [];
        },
      ),
    );
  return topics.get(streamId);
}

export async function topicsMatching(streamId, query, limit = 8) {
  const wanted = query.trim().toLowerCase();
  const names = await streamTopics(streamId);
  const starts = names.filter((n) => n.toLowerCase().startsWith(wanted));
  const within = names.filter((n) => !n.toLowerCase().startsWith(wanted) && n.toLowerCase().includes(wanted));
  return [...starts, ...within].filter((n) => n.toLowerCase() !== wanted || !wanted).slice(0, limit);
}

// A listbox under `input`: `source(text)` gives the items (sync or async), `render(item)` its
// label, `pick(item)` what choosing it does.
export function attachCompletion(input, { id, source, render, pick }) {
  const box = el("ul", { class: "typeahead field-typeahead", role: "listbox", id, "aria-label": "Suggestions", hidden: true });
  input.after(box);
  input.setAttribute("role", "combobox");
  input.setAttribute("aria-autocomplete", "list");
  input.setAttribute("aria-controls", id);
  input.setAttribute("aria-expanded", "false");
  let items = [];
  let active = 0;
  let serial = 0;
  const close = () => {
    box.hidden = true;
    items = [];
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
  };
  const show = () => {
    clear(box);
    items.forEach((item, index) =>
      box.append(
        el(
          "li",
          {
            role: "option",
            id: `${id}-${index}`,
            class: index === active ? "active" : "",
            "aria-selected": String(index === active),
            onmousedown: (event) => {
              event.preventDefault();
              choose(index);
            },
          },
          ...render(item),
        ),
      ),
    );
    box.hidden = items.length === 0;
    input.setAttribute("aria-expanded", String(!box.hidden));
    if (!box.hidden) input.setAttribute("aria-activedescendant", `${id}-${active}`);
  };
  const choose = (index) => {
    const item = items[index];
    close();
    if (item !== undefined) pick(item);
  };
  const refresh = async () => {
    const mine = ++serial;
    const found = await source(input.value);
    if (mine !== serial || document.activeElement !== input) return;
    items = found;
    active = 0;
    show();
  };
  input.addEventListener("input", refresh);
  input.addEventListener("focus", refresh);
  input.addEventListener("blur", () => setTimeout(() => document.activeElement !== input && close(), 100));
  // In the capture phase, so that a pick comes before the field's own Enter handling.
  input.addEventListener(
    "keydown",
    (event) => {
      if (box.hidden || !items.length) return;
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        active = (active + (event.key === "ArrowDown" ? 1 : items.length - 1)) % items.length;
        show();
      } else if (event.key === "Enter" || event.key === "Tab") choose(active);
      else if (event.key === "Escape") close();
      else return;
      event.preventDefault();
      event.stopImmediatePropagation();
    },
    true,
  );
  return { close, refresh };
}
