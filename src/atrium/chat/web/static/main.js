// The client's entry point: wires the parts together, loads the state, follows the URL hash
// (the narrow in view) and starts the event loop.

import { initCompose } from "./compose.js";
import { initConnection, returnToPlace } from "./connection.js";
import { register, startEventLoop } from "./events.js";
import { initFeed, openNarrow } from "./feed.js";
import { initKeyboard } from "./keyboard.js";
import { initLeftSidebar } from "./left_sidebar.js";
import { hideList, initLists, showList } from "./lists.js";
import { prefetchNarrow } from "./message_fetch.js";
import { fromHash } from "./narrow.js";
import { initOnboarding } from "./onboarding.js";
import { closeOverlay } from "./overlay.js";
import { initRightSidebar } from "./right_sidebar.js";
import { initSearch } from "./search.js";
import { initSettings } from "./settings.js";
import { bus } from "./state.js";
import { hideTriage, initTriage, isTriageHash, showTriage } from "./triage.js";
import { initTyping } from "./typing.js";
import { initWikiPreviews } from "./wiki_preview.js";
import { initWikiResults } from "./wiki_results.js";

function route() {
  const hash = location.hash || "#all_messages";
  document.body.classList.remove("show-left", "show-right");
  closeOverlay();
  hideTriage();
  if (isTriageHash(hash)) {
    bus.emit("location", { hash, narrow: [] });
    hideList();
    showTriage(hash.slice(1));
    return;
  }
  if (hash === "#drafts" || hash === "#scheduled") {
    bus.emit("location", { hash, narrow: [] });
    showList(hash.slice(1));
    return;
  }
  hideList();
  const narrow = fromHash(hash);
  bus.emit("location", { hash, narrow });
  openNarrow(narrow);
}

function toggle(side) {
  const button = document.getElementById(`toggle-${side}`);
  const open = document.body.classList.toggle(`show-${side}`);
  button.setAttribute("aria-expanded", String(open));
}

async function boot() {
  initOnboarding(); // first: it names the system bots before the views draw
  returnToPlace();
  initConnection();
  initFeed();
  initCompose();
  initLeftSidebar();
  initRightSidebar();
  initSearch();
  initWikiResults();
  initWikiPreviews();
  initSettings();
  initLists();
  initTyping();
  initKeyboard();
  initTriage();
  document.getElementById("toggle-left").addEventListener("click", () => toggle("left"));
  document.getElementById("toggle-right").addEventListener("click", () => toggle("right"));
  const hash = location.hash || "#all_messages";
  if (hash !== "#drafts" && hash !== "#scheduled" && !isTriageHash(hash)) prefetchNarrow(fromHash(hash));
  try {
    await register();
  } catch (error) {
    document.getElementById("feed").textContent = `Could not load: ${error.message}`;
    return;
  }
  window.addEventListener("hashchange", route);
  route();
  startEventLoop();
  document.body.dataset.ready = "true";
}

boot();
