// Modal dialogs and pop-up menus: one at a time, Esc or a click outside closes, focus returns
// to where it was.

import { clear, el } from "./dom.js";

let current = null;

export function closeOverlay() {
  if (!current) return false;
  const { node, restore, onClose } = current;
  current = null;
  node.remove();
  onClose?.();
  restore?.focus?.({ preventScroll: true });
  return true;
}

export function isOverlayOpen() {
  return current !== null;
}

const FOCUSABLE = "a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex='-1'])";

// A modal dialog keeps the focus: Tab from its last control goes to its first, and back.
function keepFocusIn(dialog, event) {
  const controls = [...dialog.querySelectorAll(FOCUSABLE)].filter((node) => node.checkVisibility?.() ?? node.offsetParent !== null);
  if (!controls.length) return;
  const [first, last] = [controls[0], controls[controls.length - 1]];
  if (event.shiftKey && (document.activeElement === first || !dialog.contains(document.activeElement))) last.focus();
  else if (!event.shiftKey && (document.activeElement === last || !dialog.contains(document.activeElement))) first.focus();
  else return;
  event.preventDefault();
}

export function openDialog(title, body, { onClose, wide = false } = {}) {
  closeOverlay();
  const heading = el("h2", { id: "dialog-title", text: title });
  const close = el("button", { type: "button", class: "icon-button dialog-close", "aria-label": "Close", text: "✕", onclick: closeOverlay });
  const dialog = el("div", { class: `dialog${wide ? " wide" : ""}`, role: "dialog", "aria-modal": "true", "aria-labelledby": "dialog-title" }, el("div", { class: "dialog-head" }, heading, close), body);
  const backdrop = el("div", { class: "backdrop" }, dialog);
  backdrop.addEventListener("mousedown", (event) => {
    if (event.target === backdrop) closeOverlay();
  });
  dialog.addEventListener("keydown", (event) => event.key === "Tab" && keepFocusIn(dialog, event));
  current = { node: backdrop, restore: document.activeElement, onClose };
  clear(document.getElementById("overlay-root")).append(backdrop);
  (dialog.querySelector("input, textarea, select, button:not(.dialog-close)") ?? close).focus();
  return dialog;
}

export function openMenu(anchor, items, label) {
  closeOverlay();
  const menu = el("div", { class: "menu", role: "menu", "aria-label": label });
  for (const item of items) {
    if (!item) continue;
    menu.append(
      el("button", {
        type: "button",
        role: "menuitem",
        class: "menu-item",
        text: item.label,
        onclick: () => {
          closeOverlay();
          item.action();
        },
      }),
    );
  }
  const backdrop = el("div", { class: "backdrop transparent" }, menu);
  backdrop.addEventListener("mousedown", (event) => {
    if (event.target === backdrop) closeOverlay();
  });
  const rect = anchor.getBoundingClientRect();
  menu.style.top = `${Math.min(rect.bottom + 4, window.innerHeight - 40 * items.length - 10)}px`;
  menu.style.left = `${Math.max(8, Math.min(rect.left, window.innerWidth - 240))}px`;
  current = { node: backdrop, restore: document.activeElement };
  clear(document.getElementById("overlay-root")).append(backdrop);
  menu.addEventListener("keydown", (event) => {
    const buttons = [...menu.querySelectorAll("button")];
    const index = buttons.indexOf(document.activeElement);
    if (event.key === "ArrowDown" || event.key === "j") buttons[(index + 1) % buttons.length].focus();
    else if (event.key === "ArrowUp" || event.key === "k") buttons[(index - 1 + buttons.length) % buttons.length].focus();
    else return;
    event.preventDefault();
  });
  menu.querySelector("button")?.focus();
  return menu;
}

export function field(label, input) {
  const id = input.id || `f-${Math.random().toString(36).slice(2)}`;
  input.id = id;
  return el("div", { class: "field" }, el("label", { for: id, text: label }), input);
}
