// Who is subscribed to each stream the person can see, for the subscriber counts of the stream
// browser: taken from the register response (subscriptions, unsubscribed and never-subscribed
// streams come with their subscribers) and kept current by the subscription events.

import { bus, state } from "./state.js";

const peers = new Map(); // stream id -> Set of user ids

export function subscriberCount(streamId) {
  return peers.get(streamId)?.size ?? 0;
}

function load(data) {
  peers.clear();
  for (const key of ["subscriptions", "unsubscribed", "never_subscribed"])
    for (const stream of data[key] ?? []) peers.set(stream.stream_id, new Set(stream.subscribers ?? []));
}

function update(event) {
  const set = (id) => {
    if (!peers.has(id)) peers.set(id, new Set());
    return peers.get(id);
  };
  if (event.op === "add") for (const sub of event.subscriptions) peers.set(sub.stream_id, new Set([...(sub.subscribers ?? []), state.me]));
  else if (event.op === "remove") for (const sub of event.subscriptions) set(sub.stream_id).delete(state.me);
  else if (event.op === "peer_add") for (const id of event.stream_ids) for (const user of event.user_ids) set(id).add(user);
  else if (event.op === "peer_remove") for (const id of event.stream_ids) for (const user of event.user_ids) set(id).delete(user);
}

export function initStreamPeers() {
  bus.on("state", load);
  bus.on("event:subscription", update);
}
