// "Show changes" without a reload: the edit form is posted as the button would post it, and the
// diff in the answer takes the place of the one shown (or goes above the form). Without script,
// or when the answer has no diff (an edit conflict, an expired session), the button submits the
// form as usual and the whole page comes back.
const form = document.getElementById("editform");
const button = document.getElementById("wpDiff");

async function showChanges() {
  const body = new FormData(form);
  body.set(button.name, button.value);
  const response = await fetch(form.action, { method: "POST", body, credentials: "same-origin" });
  if (!response.ok) return false;
  const answer = new DOMParser().parseFromString(await response.text(), "text/html");
  const diff = answer.getElementById("wikiDiff");
  if (!diff) return false;
  const fresh = document.importNode(diff, true);
  const shown = document.getElementById("wikiDiff");
  // A preview shown earlier no longer matches the text.
  document.getElementById("wikiPreview")?.remove();
  if (shown) shown.replaceWith(fresh);
  else form.before(fresh);
  return true;
}

if (form && button && typeof fetch === "function") {
  button.addEventListener("click", (event) => {
    event.preventDefault();
    showChanges()
      .catch(() => false)
      .then((done) => {
        if (!done) form.requestSubmit(button);
      });
  });
}
