// Alert words marked in the messages that have them, as Zulip's web app does: the server sets
// the `has_alert_word` flag, the client wraps each occurrence in `span.alert-word`. The word's
// edges follow Zulip's web app (space, line edge or punctuation before and after); only text
// nodes are touched, so the server's markup stays as it was.

import { state } from "./state.js";

const BEFORE = "(^|\\s|[(\".,';\\[])";
const AFTER = "(?=\\s|$|[)\"?!:.,';\\]])";

function escape(word) {
  return word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function markAlertWords(content, message) {
  if (!(message.flags ?? []).includes("has_alert_word") || state.alertWords.length === 0) return;
  const words = [...state.alertWords].sort((a, b) => b.length - a.length).map(escape).join("|");
  const pattern = new RegExp(`${BEFORE}(${words})${AFTER}`, "giu");
  const walker = document.createTreeWalker(content, NodeFilter.SHOW_TEXT);
  const texts = [];
  while (walker.nextNode()) texts.push(walker.currentNode);
  for (const node of texts) {
    const text = node.nodeValue;
    const matches = [...text.matchAll(pattern)];
    if (matches.length === 0) continue;
    const fragment = document.createDocumentFragment();
    let done = 0;
    for (const match of matches) {
      const start = match.index + match[1].length;
      fragment.append(text.slice(done, start));
      const span = document.createElement("span");
      span.className = "alert-word";
      span.textContent = match[2];
      fragment.append(span);
      done = start + match[2].length;
    }
    fragment.append(text.slice(done));
    node.replaceWith(fragment);
  }
}
