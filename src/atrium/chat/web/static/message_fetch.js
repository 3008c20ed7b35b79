// Fetching the feed's messages: GET /messages by anchor, the first narrow's answer asked for
// early, and GET /messages/matches_narrow for whether messages belong to a narrow. Only the
// API is touched here, never the page.

import { get } from "./api.js";
import { forServer, sameNarrow } from "./narrow.js";

export const BATCH = 50;
export const FIRST_BEFORE = 100; // a narrow opens with this much history above its anchor (two screens)

export function messagesQuery(anchor, before, after, includeAnchor, narrow) {
  return {
    anchor: String(anchor),
    num_before: before,
    num_after: after,
    include_anchor: includeAnchor,
    narrow: forServer(narrow),
    apply_markdown: true,
    client_gravatar: true,
  };
}

export function fetchMessages(narrow, anchor, before, after, includeAnchor = true) {
  return get("/messages", messagesQuery(anchor, before, after, includeAnchor, narrow));
}

// Where a narrow opens: at its `near` or `id` message, at the newest for a search (whose
// results are read from the end), else at the first unread message.
export function startAnchor(narrow) {
  const near = narrow.find((t) => t.operator === "near" || t.operator === "id");
  const searching = narrow.some((t) => t.operator === "search");
  return near?.operand ?? (searching ? "newest" : "first_unread");
}

// The first narrow's messages, asked for while POST /register is still under way (main.js):
// the feed then waits for the slower of the two, not for both in turn.
let prefetched = null;

export function prefetchNarrow(narrow) {
  const promise = fetchMessages(narrow, startAnchor(narrow), FIRST_BEFORE, BATCH);
  promise.catch(() => {}); // the feed reports a failure when it takes the answer
  prefetched = { narrow, promise };
}

// The prefetched answer if it was for this narrow (same terms), once: a later opening fetches.
export function takePrefetched(narrow) {
  const early = prefetched && sameNarrow(prefetched.narrow, narrow) ? prefetched.promise : null;
  prefetched = null;
  return early;
}

// Which of `ids` are in `narrow`, with the server's highlighted match for a search; every id is
// in the narrow of all messages.
export async function matching(narrow, ids) {
  if (!narrow.length) return new Map(ids.map((id) => [id, null]));
  const body = await get("/messages/matches_narrow", { msg_ids: ids, narrow: forServer(narrow) });
  return new Map(Object.entries(body.messages).map(([id, match]) => [Number(id), match]));
}
