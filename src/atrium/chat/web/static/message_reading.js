// Reading state from a message's menu: "Mark as unread from here" (this message and every later
// one in the view, as Zulip's web app does, through POST /messages/flags/narrow) and "Read
// receipts" (who has read it, as the server tells; people who turned receipts off are not told).

import { get, post } from "./api.js";
import { el, toast } from "./dom.js";
import { forServer } from "./narrow.js";
import { openDialog } from "./overlay.js";
import { bus, userName } from "./state.js";

const BATCH = 1000;
const MOST_BATCHES = 20;

export async function markUnreadFromHere(message, narrow) {
  // The view stops marking what is on screen as read, or the messages would be read again.
  bus.emit("feed:keep-unread");
  let anchor = message.id;
  let include = true;
  try {
    for (let batch = 0; batch < MOST_BATCHES; batch += 1) {
      const body = await post("/messages/flags/narrow", {
        anchor: String(anchor),
        include_anchor: include,
        num_before: 0,
        num_after: BATCH,
        narrow: forServer(narrow.filter((t) => t.operator !== "near" && t.operator !== "id")),
        op: "remove",
        flag: "read",
      });
      if (body.found_newest || body.last_processed_id === null) break;
      anchor = body.last_processed_id;
      include = false;
    }
  } catch (error) {
    toast(error.message);
  }
}

export async function showReadReceipts(message) {
  const body = el("div", { class: "read-receipts" }, el("p", { class: "feed-status", text: "Loading…" }));
  openDialog("Read receipts", body);
  try {
    const answer = await get(`/messages/${message.id}/read_receipts`);
    const names = answer.user_ids.map(userName).sort((a, b) => a.localeCompare(b));
    body.replaceChildren(
      el("p", { text: names.length ? `This message has been read by ${names.length} ${names.length === 1 ? "person" : "people"}:` : "No one has read this message yet." }),
      el("ul", { class: "read-receipt-list", "aria-label": "Read by" }, ...names.map((name) => el("li", { text: name }))),
    );
  } catch (error) {
    body.replaceChildren(el("p", { class: "feed-status error", role: "alert", text: error.message }));
  }
}
