// The search box: Zulip's operators (stream:, topic:, sender:, is:, has:, near:, free text)
// become a narrow in the URL; the feed shows the server's matches with their highlighting.

import { parseSearch, toHash, toSearchText } from "./narrow.js";
import { bus } from "./state.js";

export function focusSearch() {
  const input = document.getElementById("search-input");
  input.focus();
  input.select();
}

export function initSearch() {
  const form = document.getElementById("search-form");
  const input = document.getElementById("search-input");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const narrow = parseSearch(input.value.trim());
    location.hash = toHash(narrow);
    document.getElementById("feed").focus({ preventScroll: true });
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      input.blur();
      event.stopPropagation();
    }
  });
  bus.on("location", ({ narrow }) => {
    if (document.activeElement !== input) input.value = toSearchText(narrow);
  });
}
