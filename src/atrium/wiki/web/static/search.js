// Title suggestions under the header search box: the titles starting with what is typed, from
// the API's prefix search, offered through the input's <datalist>.
const input = document.getElementById("searchInput");
const list = document.getElementById("searchSuggestions");
let pending = null;
let latest = "";

async function suggest(text) {
  const url = "/w/api.php?action=query&list=prefixsearch&format=json&formatversion=2" +
    "&pslimit=10&pssearch=" + encodeURIComponent(text);
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok || text !== latest) return;
  const data = await response.json();
  const titles = (data.query && data.query.prefixsearch) || [];
  list.replaceChildren(...titles.map((page) => {
    const option = document.createElement("option");
    option.value = page.title;
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
