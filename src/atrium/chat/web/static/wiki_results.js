// The wiki's pages beside a search's messages: when the page runs beside a wiki (the
// `atrium-wiki` meta) and the narrow searches text, the workspace's one search is asked too and
// the pages it finds (only those this person may read) are listed above the messages.

import { call } from "./api.js";
import { toSearchText } from "./narrow.js";
import { clear, el } from "./dom.js";
import { bus } from "./state.js";

const WIKI = globalThis.document?.querySelector('meta[name="atrium-wiki"]')?.content ?? "";
const LIMIT = 10;

// The wiki's snippet is escaped text with highlight spans: shown as text, never as markup.
function snippetText(html) {
  return new DOMParser().parseFromString(html, "text/html").body.textContent ?? "";
}

function render(section, query, pages) {
  clear(section);
  if (!pages.length) {
    section.hidden = true;
    return;
  }
  const more = `${WIKI.replace(/\/wiki\/.*$/, "")}/w/index.php?${new URLSearchParams({ title: "Special:Search", search: query, fulltext: "1" })}`;
  section.append(
    el("h2", { class: "wiki-results-heading", text: "Wiki pages" }),
    el(
      "ul",
      { class: "wiki-results-list" },
      pages.map((page) =>
        el(
          "li",
          { class: "wiki-result" },
          el("a", { class: "wiki-link", href: page.url, text: page.title }),
          el("span", { class: "wiki-result-snippet", text: snippetText(page.snippet) }),
        ),
      ),
    ),
    el("a", { class: "wiki-results-more", href: more, text: "All results in the wiki" }),
  );
  section.hidden = false;
}

export function initWikiResults() {
  const section = document.getElementById("wiki-results");
  if (!WIKI || !section) return;
  let asked = 0;
  bus.on("location", async ({ narrow }) => {
    const ticket = ++asked;
    const searches = narrow.some((term) => term.operator === "search" && !term.negated);
    if (!searches) {
      render(section, "", []);
      return;
    }
    const query = toSearchText(narrow);
    try {
      const body = await call("GET", "/atrium/search", { q: query, limit: LIMIT });
      if (ticket !== asked) return; // a newer search answered first
      render(section, query, body.results.filter((hit) => hit.type === "page"));
    } catch {
      if (ticket === asked) render(section, query, []);
    }
  });
}
