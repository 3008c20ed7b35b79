// A card under a message that links one wiki page: its title, first paragraph and last edit,
// when a wiki runs beside the chat. The server answers only a reader of the wiki; anyone else
// sees the plain link. Cards are built from text (never HTML) and cached per page for the visit.

import { get } from "./api.js";
import { el } from "./dom.js";

const WIKI = globalThis.document?.querySelector('meta[name="atrium-wiki"]')?.content ?? "";
const cards = new Map(); // page title -> Promise of its preview, or of null

function pageTitle(link) {
  // The link's title attribute: `Page` or `Page#Section`.
  return (link.getAttribute("title") ?? "").split("#")[0];
}

function preview(title) {
  if (!cards.has(title))
    cards.set(
      title,
      get("/atrium/wiki_preview", { title }).then(
        (body) => body.page,
        () => null,
      ),
    );
  return cards.get(title);
}

async function addCard(content) {
  const wikiLinks = content.querySelectorAll("a.wiki-link:not(.new)");
  if (wikiLinks.length !== 1 || content.parentElement?.querySelector(":scope > .wiki-preview")) return;
  const page = await preview(pageTitle(wikiLinks[0]));
  if (!page || !content.isConnected || content.parentElement.querySelector(":scope > .wiki-preview")) return;
  const edited = page.last_edit.user ? `Last edited ${page.last_edit.timestamp} by ${page.last_edit.user}` : `Last edited ${page.last_edit.timestamp}`;
  content.after(
    el(
      "aside",
      { class: "wiki-preview", "aria-label": `Wiki page ${page.title}` },
      el("a", { class: "wiki-preview-title", href: page.url, text: page.title }),
      page.extract ? el("p", { class: "wiki-preview-extract", text: page.extract }) : null,
      el("p", { class: "wiki-preview-edit", text: edited }),
    ),
  );
}

function scan(root) {
  if (!(root instanceof Element)) return;
  if (root.matches(".message-content")) addCard(root);
  for (const content of root.querySelectorAll(".message-content")) addCard(content);
}

export function initWikiPreviews() {
  const feed = document.getElementById("feed");
  if (!WIKI || !feed) return;
  new MutationObserver((records) => {
    for (const record of records) for (const node of record.addedNodes) scan(node);
  }).observe(feed, { childList: true, subtree: true });
  scan(feed);
}
