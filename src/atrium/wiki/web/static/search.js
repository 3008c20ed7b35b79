// Suggestions under the header search box, as Vector 2022's typeahead shows them: the titles
// starting with what is typed, each with the page's first sentence under it, from the REST
// title search (`/w/rest.php/v1/search/title`). Arrow keys move through them, Enter or a click
// opens one, Escape closes the list; without this module the box is a plain search field.
const input = document.getElementById("searchInput");
const form = document.getElementById("searchform");
let pending = null;
let latest = "";
let active = -1;

function build() {
  const list = document.createElement("ul");
  list.id = "searchSuggestionsList";
  list.className = "vector-typeahead-search-results";
  list.setAttribute("role", "listbox");
  list.hidden = true;
  form.append(list);
  input.removeAttribute("list");
  input.setAttribute("aria-controls", list.id);
  input.setAttribute("aria-autocomplete", "list");
  return list;
}

function entry(page) {
  const item = document.createElement("li");
  item.setAttribute("role", "option");
  item.className = "suggestion";
  const link = document.createElement("a");
  link.href = "/wiki/" + encodeURIComponent(page.key).replace(/%3A/g, ":").replace(/%2F/g, "/");
  const title = document.createElement("span");
  title.className = "suggestion-title";
  title.textContent = page.title;
  link.append(title);
  if (page.description) {
    const description = document.createElement("span");
    description.className = "suggestion-description";
    description.textContent = page.description;
    link.append(description);
  }
  item.append(link);
  return item;
}

function show(list, pages) {
  active = -1;
  list.replaceChildren(...pages.map(entry));
  list.hidden = pages.length === 0;
}

function move(list, step) {
  const items = [...list.children];
  if (!items.length) return;
  items[active]?.classList.remove("suggestion-highlighted");
  active = (active + step + items.length) % items.length;
  items[active].classList.add("suggestion-highlighted");
  items[active].setAttribute("aria-selected", "true");
}

async function suggest(list, text) {
  const url = "/w/rest.php/v1/search/title?limit=10&q=" + encodeURIComponent(text);
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok || text !== latest) return;
  const data = await response.json();
  show(list, Array.isArray(data.pages) ? data.pages : []);
}

if (input && form) {
  const list = build();
  input.addEventListener("input", () => {
    latest = input.value.trim();
    clearTimeout(pending);
    if (!latest) {
      show(list, []);
      return;
    }
    pending = setTimeout(() => suggest(list, latest).catch(() => {}), 150);
  });
  input.addEventListener("keydown", (event) => {
    if (list.hidden) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      move(list, event.key === "ArrowDown" ? 1 : -1);
    } else if (event.key === "Enter" && active >= 0) {
      event.preventDefault();
      list.children[active].querySelector("a").click();
    } else if (event.key === "Escape") {
      show(list, []);
    }
  });
  input.addEventListener("blur", () => setTimeout(() => { list.hidden = true; }, 200));
}
