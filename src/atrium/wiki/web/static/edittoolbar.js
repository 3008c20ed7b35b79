// The wikitext toolbar above the edit box (WikiEditor's main group): bold, italic, a link with
// title completion, a heading, a list, a file, a reference, a signature and a table. Each tool
// wraps the selected text in its markup, or inserts a sample and selects it. Without this
// module the edit form is the plain text area.
const box = document.getElementById("wpTextbox1");

// [id, label, before, sample, after]
const TOOLS = [
  ["bold", "Bold", "'''", "Bold text", "'''"],
  ["italic", "Italic", "''", "Italic text", "''"],
  ["heading", "Heading", "\n== ", "Heading text", " ==\n"],
  ["ulist", "Bulleted list", "\n* ", "List item", "\n"],
  ["file", "Embedded file", "[[File:", "Example.jpg", "|thumb|Caption]]"],
  ["reference", "Reference", "<ref>", "Insert footnote text here", "</ref>"],
  ["signature", "Signature and timestamp", "--~~~~", "", ""],
  ["table", "Table", '\n{| class="wikitable"\n|-\n! Header 1 !! Header 2\n|-\n| ', "Example", " || Example\n|}\n"],
];

// `text` replaces the selection when given; else the selection, or the sample, is wrapped.
function insert(before, sample, after, text = "") {
  const start = box.selectionStart;
  const end = box.selectionEnd;
  const inner = text || box.value.slice(start, end) || sample;
  box.setRangeText(before + inner + after, start, end, "end");
  const innerStart = start + before.length;
  box.focus();
  box.setSelectionRange(innerStart, innerStart + inner.length);
  box.dispatchEvent(new Event("input", { bubbles: true }));
}

function button(id, label, onClick) {
  const element = document.createElement("button");
  element.type = "button";
  element.className = "wikiEditor-tool tool-" + id;
  element.dataset.tool = id;
  element.title = label;
  element.textContent = label;
  element.addEventListener("click", onClick);
  return element;
}

// The link tool: a small form under the toolbar whose title box completes page titles from
// `action=opensearch`, as WikiEditor's link dialog does.
function linkPanel(toolbar) {
  const panel = document.createElement("div");
  panel.className = "wikiEditor-link-panel";
  panel.hidden = true;
  const target = document.createElement("input");
  target.id = "wikieditor-toolbar-link-int-target";
  target.setAttribute("list", "wikieditor-link-titles");
  target.setAttribute("aria-label", "Target page or URL");
  target.placeholder = "Target page or URL";
  const titles = document.createElement("datalist");
  titles.id = "wikieditor-link-titles";
  const text = document.createElement("input");
  text.id = "wikieditor-toolbar-link-int-text";
  text.setAttribute("aria-label", "Text to display");
  text.placeholder = "Text to display";
  let latest = "";
  target.addEventListener("input", async () => {
    latest = target.value.trim();
    if (!latest) return;
    const asked = latest;
    const url = "/w/api.php?action=opensearch&limit=10&search=" + encodeURIComponent(asked);
    const response = await fetch(url, { credentials: "same-origin" }).catch(() => null);
    if (!response || !response.ok || asked !== latest) return;
    const data = await response.json();
    titles.replaceChildren(...(data[1] || []).map((title) => {
      const option = document.createElement("option");
      option.value = title;
      return option;
    }));
  });
  const add = button("link-insert", "Insert link", () => {
    const page = target.value.trim();
    if (!page) return;
    const label = text.value.trim() || box.value.slice(box.selectionStart, box.selectionEnd);
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(page)) {
      insert("[" + page + (label ? " " : ""), "", "]", label);
    } else {
      insert("[[" + page + (label ? "|" : ""), "", "]]", label);
    }
    panel.hidden = true;
  });
  panel.append(target, titles, text, add);
  toolbar.after(panel);
  return panel;
}

if (box) {
  const toolbar = document.createElement("div");
  toolbar.className = "wikiEditor-ui-toolbar";
  toolbar.setAttribute("role", "toolbar");
  toolbar.setAttribute("aria-label", "Wikitext toolbar");
  const [bold, italic, ...rest] = TOOLS.map(([id, label, before, sample, after]) =>
    button(id, label, () => insert(before, sample, after)));
  box.before(toolbar);
  const panel = linkPanel(toolbar);
  const link = button("link", "Link", () => {
    panel.hidden = !panel.hidden;
    if (!panel.hidden) {
      panel.querySelector("#wikieditor-toolbar-link-int-text").value =
        box.value.slice(box.selectionStart, box.selectionEnd);
      panel.querySelector("#wikieditor-toolbar-link-int-target").focus();
    }
  });
  toolbar.append(bold, italic, link, ...rest);
}
