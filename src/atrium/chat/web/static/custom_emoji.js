// The organization's custom emoji: upload one (name and image), list them with who added
// them, delete those this person may (administrators, or the one who added it). The list is
// the register response's `realm_emoji`, replaced whole by each `realm_emoji` event.

import { del, post } from "./api.js";
import { clear, el, toast } from "./dom.js";
import { field } from "./overlay.js";
import { canAddEmoji, canDeleteEmoji } from "./permissions.js";
import { bus, state, userName } from "./state.js";

let redraw = () => {};

function uploadForm() {
  const name = el("input", { type: "text", id: "emoji-name", required: true, maxlength: "60", pattern: "[a-z0-9_\\- ]+", placeholder: "party_parrot" });
  const file = el("input", { type: "file", id: "emoji-file", required: true, accept: "image/png,image/gif,image/jpeg,image/webp" });
  const form = el("form", { class: "dialog-form inline", "aria-label": "Add a custom emoji" }, field("Emoji name", name), field("Image", file), el("button", { type: "submit", class: "primary", id: "add-emoji", text: "Add emoji" }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData();
    data.append("file", file.files[0]);
    try {
      await post(`/realm/emoji/${encodeURIComponent(name.value.trim())}`, data);
      toast("Emoji added");
      form.reset();
    } catch (error) {
      toast(error.message);
    }
  });
  return form;
}

export function customEmojiPage() {
  const list = el("ul", { class: "admin-list emoji-list", id: "emoji-list", "aria-label": "Custom emoji" });
  const draw = () => {
    const active = Object.values(state.realm.realm_emoji ?? {}).filter((e) => !e.deactivated).sort((a, b) => a.name.localeCompare(b.name));
    clear(list).append(
      ...active.map((emoji) =>
        el(
          "li",
          { class: "emoji-row", dataset: { emojiName: emoji.name } },
          el("img", { class: "custom-emoji", src: emoji.source_url, alt: `:${emoji.name}:`, width: "24", height: "24", loading: "lazy" }),
          el("code", { text: `:${emoji.name}:` }),
          el("span", { class: "emoji-author", text: emoji.author_id ? `added by ${userName(emoji.author_id)}` : "" }),
          canDeleteEmoji(emoji) ? el("button", { type: "button", class: "danger", text: "Delete", "aria-label": `Delete :${emoji.name}:`, onclick: () => del(`/realm/emoji/${encodeURIComponent(emoji.name)}`).then(() => toast("Emoji deleted"), (e) => toast(e.message)) }) : null,
        ),
      ),
    );
    if (!active.length) list.append(el("li", { class: "empty", text: "No custom emoji yet." }));
  };
  draw();
  redraw = () => list.isConnected && draw();
  return el("div", {}, canAddEmoji() ? uploadForm() : el("p", { text: "Your organization does not let you add emoji." }), list);
}

export function initCustomEmoji() {
  bus.on("event:realm_emoji", (event) => {
    if (event.op === "update") state.realm.realm_emoji = event.realm_emoji;
    redraw();
  });
}
