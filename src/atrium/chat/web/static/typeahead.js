// Typeahead in the compose box: `@` people and groups, `#` streams (then `>` topics),
// `:` emoji, and `[[` wiki pages when a wiki runs beside the chat. Arrow keys move, Enter or
// Tab picks, Esc closes.

import { get } from "./api.js";
import { clear, el } from "./dom.js";
import { searchEmoji } from "./emoji.js";
import { state } from "./state.js";

const TRIGGER = /(^|[\s(])([@#:])(\*\*)?([^\s@#:*]*(?:>[^*]*)?)$/;
const WIKI_TRIGGER = /\[\[([^[\]|\n]{0,100})$/;
const WIKI = globalThis.document?.querySelector('meta[name="atrium-wiki"]')?.content ?? "";

async function wikiPages(prefix) {
  try {
    const body = await get("/atrium/wiki_titles", { prefix, limit: 8 });
    return body.titles.map((title) => ({ label: title, detail: "wiki page", insert: `[[${title}]] ` }));
  } catch {
    return [];
  }
}

function matches(text, query) {
  return text.toLowerCase().includes(query.toLowerCase());
}

async function candidates(kind, query) {
  if (kind === "@") {
    const users = [...state.users.values()]
      .filter((u) => u.is_active !== false && (matches(u.full_name, query) || matches(u.email, query)))
      .slice(0, 8)
      .map((u) => ({ label: u.full_name, detail: u.email, insert: `@**${u.full_name}** ` }));
    const groups = [...state.groups.values()]
      .filter((g) => !g.is_system_group && matches(g.name, query))
      .slice(0, 4)
      .map((g) => ({ label: g.name, detail: "group", insert: `@*${g.name}* ` }));
    return [...users, ...groups];
  }
  if (kind === "#") {
    const [streamPart, topicPart] = query.split(">");
    const subs = [...state.subs.values()];
    if (topicPart !== undefined && state.features.has("topics")) {
      const stream = subs.find((s) => s.name.toLowerCase() === streamPart.toLowerCase());
      if (!stream) return [];
      try {
        const body = await get(`/users/me/${stream.stream_id}/topics`);
        return body.topics
          .filter((t) => matches(t.name, topicPart))
          .slice(0, 8)
          .map((t) => ({ label: `${stream.name} > ${t.name}`, insert: `#**${stream.name}>${t.name}** ` }));
      } catch {
        return [];
      }
    }
    return subs
      .filter((s) => matches(s.name, streamPart))
      .slice(0, 8)
      .map((s) => ({ label: s.name, detail: "stream", insert: `#**${s.name}** ` }));
  }
  if (query.length < 1) return [];
  return searchEmoji(query, 8).map((e) => ({ label: `${e.char} ${e.name}`, insert: `:${e.name}: ` }));
}

export function attachTypeahead(textarea) {
  const box = el("ul", { class: "typeahead", role: "listbox", "aria-label": "Suggestions", hidden: true });
  textarea.after(box);
  textarea.setAttribute("aria-autocomplete", "list");
  let items = [];
  let active = 0;
  let start = 0;

  const close = () => {
    box.hidden = true;
    items = [];
  };
  const show = () => {
    clear(box);
    items.forEach((item, index) => {
      box.append(
        el(
          "li",
          {
            role: "option",
            class: index === active ? "active" : "",
            "aria-selected": index === active ? "true" : "false",
            onmousedown: (event) => {
              event.preventDefault();
              pick(index);
            },
          },
          item.label,
          item.detail ? el("span", { class: "detail", text: " " + item.detail }) : null,
        ),
      );
    });
    box.hidden = items.length === 0;
  };
  const pick = (index) => {
    const item = items[index];
    if (!item) return;
    const caret = textarea.selectionStart;
    textarea.value = textarea.value.slice(0, start) + item.insert + textarea.value.slice(caret);
    const position = start + item.insert.length;
    textarea.setSelectionRange(position, position);
    close();
    textarea.dispatchEvent(new Event("input"));
  };

  let serial = 0;
  textarea.addEventListener("input", async () => {
    const before = textarea.value.slice(0, textarea.selectionStart);
    const wiki = WIKI ? WIKI_TRIGGER.exec(before) : null;
    const match = wiki ? null : TRIGGER.exec(before);
    if (!match && !wiki) return close();
    const mine = ++serial;
    start = wiki ? wiki.index : match.index + match[1].length;
    const found = wiki ? await wikiPages(wiki[1]) : await candidates(match[2], match[4]);
    if (mine !== serial) return;
    items = found;
    active = 0;
    show();
  });
  // Closed a moment after the box loses focus, so that a click on a suggestion still lands; not
  // if the box has focus again by then (a quick click elsewhere and back, then typing).
  textarea.addEventListener("blur", () =>
    setTimeout(() => {
      if (document.activeElement !== textarea) close();
    }, 100),
  );
  return {
    isOpen: () => !box.hidden && items.length > 0,
    key(event) {
      if (box.hidden || !items.length) return false;
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        active = (active + (event.key === "ArrowDown" ? 1 : items.length - 1)) % items.length;
        show();
      } else if (event.key === "Enter" || event.key === "Tab") pick(active);
      else if (event.key === "Escape") close();
      else return false;
      event.preventDefault();
      event.stopPropagation();
      return true;
    },
  };
}
