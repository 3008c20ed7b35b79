// Building elements without HTML strings: every text goes in as text. The one exception,
// `setServerHtml`, takes HTML that the server's sanitizer produced (rendered messages).

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

export function setServerHtml(node, html) {
  // Only ever called with `content` / `rendered` from the server's markdown sanitizer.
  node.innerHTML = html;
}

export function $(selector, root = document) {
  return root.querySelector(selector);
}

export function toast(message) {
  const box = document.getElementById("toast");
  if (!box) return;
  box.textContent = message;
  box.classList.add("visible");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => box.classList.remove("visible"), 4000);
}

export function showEmoji(root) {
  // The server marks emoji as <span class="emoji emoji-1f44b">:wave:</span>; show the character.
  for (const span of root.querySelectorAll("span.emoji")) {
    const code = [...span.classList].find((c) => /^emoji-[0-9a-f-]+$/.test(c));
    if (!code) continue;
    try {
      span.textContent = String.fromCodePoint(...code.slice(6).split("-").map((h) => parseInt(h, 16)));
    } catch {
      // An unknown code keeps its :name: text.
    }
  }
}

export function avatar(url, name, size = 32) {
  // No avatar URL means the server left the default (Gravatar) to the client: show an initial
  // rather than ask a third party about this person.
  if (url) return el("img", { class: "avatar", alt: "", src: url, loading: "lazy", width: String(size), height: String(size) });
  return el("span", { class: "avatar initials", "aria-hidden": "true", text: (name || "?").trim().charAt(0).toUpperCase() });
}

// Runs `fn` once the next frame has been painted; at the latest after 200 ms, since a hidden
// tab paints no frames.
export function afterPaint(fn) {
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    fn();
  };
  requestAnimationFrame(() => setTimeout(run));
  setTimeout(run, 200);
}
