// The Inbox view: every conversation with unread messages, direct messages first, then each
// stream (collapsible) with its topics, with their counts. Drawn from the client's unread
// state alone, so it opens without a request and follows every event.

import { clear, el } from "./dom.js";
import { toHash } from "./narrow.js";
import { state, topicKey, unreadCounts, userName } from "./state.js";

const collapsed = new Set(); // stream ids folded by the person, for this page's life

function badge(n) {
  return el("span", { class: "unread-count", "aria-label": `${n} unread`, text: String(n) });
}

function row(href, label, n, extra = "") {
  return el("li", { class: `inbox-row${extra}` }, el("a", { href, class: "inbox-link" }, el("span", { class: "inbox-label", text: label }), badge(n)));
}

function dmSection(counts) {
  const rows = [...counts.dms].filter(([, n]) => n).sort((a, b) => b[1] - a[1]);
  if (!rows.length) return null;
  const list = el("ul", { class: "inbox-topics", "aria-label": "Direct messages" });
  for (const [key, n] of rows) {
    const ids = key.split(",").map(Number).filter((id) => id !== state.me);
    const everyone = ids.length ? ids : [state.me];
    list.append(row(toHash([{ operator: "dm", operand: [...everyone].sort((a, b) => a - b) }]), everyone.map(userName).join(", "), n, " dm"));
  }
  return el("section", { class: "inbox-group", dataset: { group: "dm" } }, el("h3", { class: "inbox-heading" }, el("span", { text: "Direct messages" }), badge(rows.reduce((s, [, n]) => s + n, 0))), list);
}

function streamSection(streamId, n, topics, rerender) {
  const stream = state.streams.get(streamId);
  const name = stream?.name ?? `stream ${streamId}`;
  const open = !collapsed.has(streamId);
  const toggle = el(
    "button",
    {
      type: "button",
      class: "inbox-toggle",
      "aria-expanded": String(open),
      "aria-label": `${open ? "Collapse" : "Expand"} ${name}`,
      onclick: () => {
        open ? collapsed.add(streamId) : collapsed.delete(streamId);
        rerender();
      },
    },
    open ? "▾" : "▸",
  );
  const heading = el(
    "h3",
    { class: "inbox-heading" },
    toggle,
    el("a", { href: toHash([{ operator: "stream", operand: streamId }]), class: "inbox-stream", text: name }),
    badge(n),
  );
  const section = el("section", { class: "inbox-group", dataset: { streamId: String(streamId) } }, heading);
  if (open) {
    const list = el("ul", { class: "inbox-topics", "aria-label": `Topics in ${name}` });
    for (const [topic, count] of topics.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])))
      list.append(row(toHash([{ operator: "stream", operand: streamId }, { operator: "topic", operand: topic }]), topic || "(no topic)", count));
    section.append(list);
  }
  return section;
}

export function renderInbox(container, rerender, header) {
  const counts = unreadCounts();
  const topicsByStream = new Map();
  const seen = new Set();
  for (const entry of state.unread.values()) {
    if (entry.kind !== "stream") continue;
    const key = topicKey(entry.stream_id, entry.topic);
    if (seen.has(key)) continue;
    seen.add(key);
    if (!topicsByStream.has(entry.stream_id)) topicsByStream.set(entry.stream_id, []);
    topicsByStream.get(entry.stream_id).push([entry.topic, counts.topics.get(key)]);
  }
  const body = el("div", { class: "inbox", role: "region", "aria-label": "Inbox" });
  const dms = dmSection(counts);
  if (dms) body.append(dms);
  const streams = [...topicsByStream.keys()].sort((a, b) => (state.streams.get(a)?.name ?? "").localeCompare(state.streams.get(b)?.name ?? ""));
  for (const streamId of streams) body.append(streamSection(streamId, counts.streams.get(streamId) ?? 0, topicsByStream.get(streamId), rerender));
  if (!dms && !streams.length) body.append(el("p", { class: "feed-status", text: "You have no unread messages." }));
  clear(container).append(header, body);
}
