// Title suggestions under the header search box: the titles starting with what is typed, from
// the API's `action=opensearch` (as MediaWiki's search box asks), offered through the input's
// <datalist>.
const input = document.getElementById("searchInput");
const list = document.getElementById("searchSuggestions");
let pending = null;
let latest = "";

async function suggest(text) {
  const url = "/w/api.php?action=opensearch&limit=10&search=" + encodeURIComponent(text);
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok || text !== latest) return;
  const data = await response.json();
  const titles = Array.isArray(data) ? data[1] : [];
  list.replaceChildren(...titles.map((title) => {
    const option = document.createElement("option");
    option.value = title;
    return option;
  }));
}

if (input && list) {
  input.addEventListener("input", () => {
    latest = input.value.trim();
    clearTimeout(pending);
    if (!latest) {
      list.replaceChildren();
      return;
    }
    pending = setTimeout(() => suggest(latest).catch(() => {}), 150);
  });
}
