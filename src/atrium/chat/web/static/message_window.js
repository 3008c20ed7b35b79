// The feed's messages as data: a bounded window of one narrow's messages in id order, and the
// events merged into it. Nothing here touches the page, so the view (feed.js) decides what to
// draw from what these functions say changed, and `node --test` runs them as they are.

export const WINDOW = 400; // messages kept in the feed (and the DOM) at most

export function createWindow(narrow) {
  return { narrow, messages: [], byId: new Map(), foundOldest: false, foundNewest: false };
}

// Messages from the server join the window in id order; one already there takes the newer copy.
export function addMessages(win, messages) {
  for (const message of messages) {
    if (win.byId.has(message.id)) Object.assign(win.byId.get(message.id), message);
    else {
      win.byId.set(message.id, message);
      win.messages.push(message);
    }
  }
  win.messages.sort((a, b) => a.id - b.id);
}

// Keep the `size` messages at the `keep` end ("oldest" or "newest"); the other end is no longer
// known to be complete, so scrolling there fetches it again.
export function trim(win, keep, size = WINDOW) {
  const extra = win.messages.length - size;
  if (extra <= 0) return [];
  const dropped = keep === "oldest" ? win.messages.splice(size) : win.messages.splice(0, extra);
  for (const message of dropped) win.byId.delete(message.id);
  if (keep === "oldest") win.foundNewest = false;
  else win.foundOldest = false;
  return dropped;
}

export function forget(win, id) {
  win.byId.delete(id);
  win.messages = win.messages.filter((m) => m.id !== id);
}

export const first = (win) => win.messages[0] ?? null;
export const last = (win) => win.messages[win.messages.length - 1] ?? null;

// Whether a new message goes after the window's last one with room to spare: the view then adds
// its nodes at the end instead of drawing the window again.
export function appendsAtEnd(win, message, size = WINDOW) {
  const end = last(win);
  return Boolean(end) && message.id > end.id && !win.byId.has(message.id) && win.messages.length < size;
}

export const hasFlag = (message, flag) => (message.flags ?? []).includes(flag);

// Unread as the feed shows it: one's own messages never are.
export const isUnread = (message, me) => !hasFlag(message, "read") && message.sender_id !== me;

// An `update_message_flags` event: the window's messages whose flags changed, for the view to
// update in place.
export function applyFlags(win, event) {
  const add = event.op === "add";
  const ids = event.all ? [...win.byId.keys()] : (event.messages ?? []);
  const changed = [];
  for (const id of ids) {
    const message = win.byId.get(id);
    if (!message || hasFlag(message, event.flag) === add) continue;
    const flags = new Set(message.flags ?? []);
    add ? flags.add(event.flag) : flags.delete(event.flag);
    message.flags = [...flags];
    changed.push(message);
  }
  return changed;
}

// A `reaction` event: the message whose reactions changed, or null when it is not in the window.
export function applyReaction(win, event) {
  const message = win.byId.get(event.message_id);
  if (!message) return null;
  const reactions = message.reactions ?? [];
  if (event.op === "add")
    reactions.push({ emoji_name: event.emoji_name, emoji_code: event.emoji_code, reaction_type: event.reaction_type, user_id: event.user_id });
  else {
    const index = reactions.findIndex((r) => r.user_id === event.user_id && r.emoji_code === event.emoji_code && r.reaction_type === event.reaction_type);
    if (index >= 0) reactions.splice(index, 1);
  }
  message.reactions = reactions;
  return message;
}

// Whether an `update_message` event moved messages (another stream or topic), which may take
// them out of a narrow or bring others into it.
export const moves = (event) => event.new_stream_id !== undefined || event.subject !== undefined;

// An `update_message` event (an edit, a move): the ids of the window's messages it changed.
// `streamName` gives a stream's name by id, for a message moved to another stream.
export function applyEdit(win, event, streamName = () => undefined) {
  const ids = event.message_ids ?? [event.message_id];
  const present = ids.filter((id) => win.byId.has(id));
  for (const id of present) {
    const message = win.byId.get(id);
    if (id === event.message_id && event.rendered_content !== undefined) {
      message.content = event.rendered_content;
      delete message.match_content;
    }
    if (event.subject !== undefined || event.topic !== undefined) message.subject = event.subject ?? event.topic;
    if (event.new_stream_id !== undefined) {
      message.stream_id = event.new_stream_id;
      message.display_recipient = streamName(event.new_stream_id) ?? message.display_recipient;
    }
    if (event.edit_timestamp) {
      message.last_edit_timestamp = event.edit_timestamp;
      message.edit_history = [
        ...(message.edit_history ?? []),
        event.rendered_content !== undefined && id === event.message_id ? { prev_content: event.orig_content } : { prev_topic: event.orig_subject },
      ];
    }
  }
  return present;
}

// A person's new avatar on their messages in the window: whether any changed.
export function applyAvatar(win, person) {
  let changed = false;
  for (const message of win.messages)
    if (message.sender_id === person.user_id) {
      message.avatar_url = person.avatar_url;
      changed = true;
    }
  return changed;
}
