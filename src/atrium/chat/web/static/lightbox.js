// The image viewer: a click on an inline preview opens the image at full size over the page,
// as Zulip's lightbox does, with a link to the original. Esc, ✕ or a click outside close it.

import { el } from "./dom.js";
import { openDialog } from "./overlay.js";

function fullUrl(preview) {
  // The preview's own /thumbnail URL at full size: the server checks the same rights.
  const src = new URL(preview.getAttribute("src"), location.origin);
  if (src.pathname !== "/thumbnail") return src.href;
  src.searchParams.set("size", "full");
  return src.pathname + src.search;
}

export function openLightbox(preview, link) {
  const title = link.getAttribute("title") || link.textContent.trim() || "Image";
  const image = el("img", { class: "lightbox-image", src: fullUrl(preview), alt: title });
  const original = el("a", { href: link.getAttribute("href"), target: "_blank", rel: "noopener noreferrer", class: "lightbox-original", text: "Open original" });
  const dialog = openDialog(title, el("div", { class: "lightbox-body" }, image, original), { wide: true });
  dialog.classList.add("lightbox");
  return dialog;
}

// A click in the feed: true when it was on an inline image preview (now shown in the viewer).
export function lightboxClick(event) {
  const preview = event.target.closest(".message_inline_image img");
  if (!preview) return false;
  const link = preview.closest("a");
  if (!link) return false;
  event.preventDefault();
  openLightbox(preview, link);
  return true;
}
