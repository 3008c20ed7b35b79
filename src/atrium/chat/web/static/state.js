// The client's state: the register response, kept current by the events (events.js calls
// `applyEvent`). Everything the views show is read from here; nothing here decides a rule the
// server owns. `bus` tells the views what changed.

export const bus = {
  handlers: new Map(),
  on(name, fn) {
    if (!this.handlers.has(name)) this.handlers.set(name, new Set());
    this.handlers.get(name).add(fn);
  },
  emit(name, data) {
    for (const fn of this.handlers.get(name) ?? []) {
      try {
        fn(data);
      } catch (error) {
        console.warn(`handler for ${name} failed`, error);
      }
    }
  },
};

export const state = {
  me: null, // user id
  realm: {},
  users: new Map(), // id -> user
  groups: new Map(),
  streams: new Map(), // id -> stream (every stream the user can see)
  subs: new Map(), // id -> subscription
  unread: new Map(), // message id -> {kind, stream_id, topic, key, mentioned}
  starred: new Set(),
  drafts: new Map(),
  scheduled: new Map(),
  userTopics: new Map(), // "stream_id:topic" -> visibility_policy
  recentDms: [],
  presence: new Map(),
  userStatus: new Map(), // user id -> {status_text, emoji_name, ...}
  alertWords: [],
  settings: {},
  // Optional endpoints this server offers (reactions, typing, presence, uploads, topics), as the
  // shell page lists them: the client never probes for them. (Outside a page, as under
  // `node --test`, there is none.)
  features: new Set((globalThis.document?.querySelector('meta[name="atrium-features"]')?.content ?? "").split(" ").filter(Boolean)),
  queueId: null,
  lastEventId: -1,
  maxMessageId: -1, // the newest message id the user had at register
};

// Display preferences live in the server's user settings (PATCH /settings), so they follow the
// person to every browser; the register response and `user_settings` events keep them current.
export function theme() {
  const scheme = state.settings.color_scheme ?? 1;
  if (scheme === 2) return "dark";
  if (scheme === 3) return "light";
  return window.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

export const twentyFourHour = () => Boolean(state.settings.twenty_four_hour_time);

export const desktopNotifications = () => state.settings.enable_desktop_notifications !== false;

export const topicKey = (streamId, topic) => `${streamId}:${topic.toLowerCase()}`;

export function dmKey(userIds) {
  const others = [...new Set(userIds)].filter((id) => id !== state.me).sort((a, b) => a - b);
  return others.length ? others.join(",") : String(state.me);
}

export function messageDmKey(message) {
  return dmKey(message.display_recipient.map((r) => r.id));
}

export function loadState(data) {
  state.me = data.user_id;
  state.queueId = data.queue_id;
  state.lastEventId = data.last_event_id;
  state.maxMessageId = data.max_message_id ?? -1;
  state.realm = {};
  for (const [key, value] of Object.entries(data))
    if (key.startsWith("realm_") || key.startsWith("max_")) state.realm[key] = value;
  state.settings = data.user_settings ?? {};
  state.users = new Map((data.realm_users ?? []).map((u) => [u.user_id, u]));
  for (const u of data.realm_non_active_users ?? []) state.users.set(u.user_id, u);
  state.groups = new Map((data.realm_user_groups ?? []).map((g) => [g.id, g]));
  state.streams = new Map((data.streams ?? []).map((s) => [s.stream_id, s]));
  state.subs = new Map((data.subscriptions ?? []).map((s) => [s.stream_id, s]));
  for (const sub of state.subs.values()) if (!state.streams.has(sub.stream_id)) state.streams.set(sub.stream_id, sub);
  state.starred = new Set(data.starred_messages ?? []);
  state.drafts = new Map((data.drafts ?? []).map((d) => [d.id, d]));
  state.scheduled = new Map((data.scheduled_messages ?? []).map((m) => [m.scheduled_message_id, m]));
  state.userTopics = new Map(
    (data.user_topics ?? []).map((t) => [topicKey(t.stream_id, t.topic_name), t.visibility_policy]),
  );
  state.recentDms = data.recent_private_conversations ?? [];
  state.presence = new Map(Object.entries(data.presences ?? {}));
  state.userStatus = new Map(Object.entries(data.user_status ?? {}).map(([id, status]) => [Number(id), status]));
  state.alertWords = data.alert_words ?? [];
  state.unread = new Map();
  const unread = data.unread_msgs ?? {};
  for (const row of unread.streams ?? [])
    for (const id of row.unread_message_ids) state.unread.set(id, { kind: "stream", stream_id: row.stream_id, topic: row.topic });
  for (const row of unread.pms ?? [])
    for (const id of row.unread_message_ids)
      state.unread.set(id, { kind: "dm", key: dmKey([row.other_user_id ?? row.sender_id]) });
  for (const row of unread.huddles ?? [])
    for (const id of row.unread_message_ids)
      state.unread.set(id, { kind: "dm", key: dmKey(row.user_ids_string.split(",").map(Number)) });
  for (const id of unread.mentions ?? []) {
    const entry = state.unread.get(id);
    if (entry) entry.mentioned = true;
  }
}

export function userName(id) {
  return state.users.get(id)?.full_name ?? `user ${id}`;
}

export function isAdmin() {
  const me = state.users.get(state.me);
  return Boolean(me && (me.is_admin || me.is_owner));
}

export function unreadCounts() {
  const streams = new Map();
  const topics = new Map();
  const dms = new Map();
  let total = 0;
  let mentions = 0;
  for (const entry of state.unread.values()) {
    total += 1;
    if (entry.mentioned) mentions += 1;
    if (entry.kind === "stream") {
      streams.set(entry.stream_id, (streams.get(entry.stream_id) ?? 0) + 1);
      const key = topicKey(entry.stream_id, entry.topic);
      topics.set(key, (topics.get(key) ?? 0) + 1);
    } else dms.set(entry.key, (dms.get(entry.key) ?? 0) + 1);
  }
  return { total, mentions, streams, topics, dms };
}

function unreadEntry(message) {
  if (message.type === "stream")
    return { kind: "stream", stream_id: message.stream_id, topic: message.subject };
  return { kind: "dm", key: messageDmKey(message) };
}

function isMentioned(flags) {
  return flags.includes("mentioned") || flags.includes("wildcard_mentioned");
}

// One function per event type; unknown types are ignored (a newer server may send more).
const handlers = {
  alert_words(event) {
    state.alertWords = event.alert_words ?? [];
  },
  message(event) {
    const message = event.message;
    const flags = event.flags ?? message.flags ?? [];
    message.flags = flags;
    if (!flags.includes("read")) state.unread.set(message.id, { ...unreadEntry(message), mentioned: isMentioned(flags) });
    if (message.type === "private") {
      const ids = message.display_recipient.map((r) => r.id).filter((id) => id !== state.me);
      const existing = state.recentDms.find((c) => c.user_ids.join(",") === ids.sort((a, b) => a - b).join(","));
      if (existing) existing.max_message_id = message.id;
      else state.recentDms.push({ user_ids: ids, max_message_id: message.id });
    }
  },
  update_message(event) {
    const newTopic = event.subject ?? event.topic;
    if (newTopic === undefined && event.new_stream_id === undefined) return;
    for (const id of event.message_ids ?? [event.message_id]) {
      const entry = state.unread.get(id);
      if (!entry || entry.kind !== "stream") continue;
      if (newTopic !== undefined) entry.topic = newTopic;
      if (event.new_stream_id !== undefined) entry.stream_id = event.new_stream_id;
    }
  },
  delete_message(event) {
    for (const id of event.message_ids ?? [event.message_id]) {
      state.unread.delete(id);
      state.starred.delete(id);
    }
  },
  update_message_flags(event) {
    const add = event.op === "add";
    if (event.flag === "read") {
      if (add && event.all) state.unread.clear();
      else if (add) for (const id of event.messages) state.unread.delete(id);
      else
        for (const id of event.messages) {
          const detail = event.message_details?.[id];
          if (!detail) continue;
          const entry =
            detail.type === "stream"
              ? { kind: "stream", stream_id: detail.stream_id, topic: detail.topic }
              : { kind: "dm", key: dmKey(detail.user_ids ?? []) };
          entry.mentioned = Boolean(detail.mentioned);
          state.unread.set(id, entry);
        }
    } else if (event.flag === "starred") {
      for (const id of event.messages) add ? state.starred.add(id) : state.starred.delete(id);
    }
  },
  subscription(event) {
    if (event.op === "add") for (const sub of event.subscriptions) {
      state.subs.set(sub.stream_id, sub);
      state.streams.set(sub.stream_id, { ...state.streams.get(sub.stream_id), ...sub });
    }
    else if (event.op === "remove") for (const sub of event.subscriptions) state.subs.delete(sub.stream_id);
    else if (event.op === "update") {
      const sub = state.subs.get(event.stream_id);
      if (sub) sub[event.property] = event.value;
    } else if (event.op === "peer_add" || event.op === "peer_remove") {
      for (const streamId of event.stream_ids) {
        const sub = state.subs.get(streamId);
        if (!sub?.subscribers) continue;
        const set = new Set(sub.subscribers);
        for (const id of event.user_ids) event.op === "peer_add" ? set.add(id) : set.delete(id);
        sub.subscribers = [...set];
      }
    }
  },
  stream(event) {
    if (event.op === "create") for (const s of event.streams) state.streams.set(s.stream_id, s);
    else if (event.op === "delete")
      for (const s of event.streams) {
        state.streams.delete(s.stream_id);
        state.subs.delete(s.stream_id);
      }
    else if (event.op === "update") {
      for (const target of [state.streams.get(event.stream_id), state.subs.get(event.stream_id)]) {
        if (!target) continue;
        target[event.property] = event.value;
        if (event.rendered_description !== undefined) target.rendered_description = event.rendered_description;
        if (event.property === "invite_only" && event.history_public_to_subscribers !== undefined)
          target.history_public_to_subscribers = event.history_public_to_subscribers;
      }
    }
  },
  realm_user(event) {
    const person = event.person;
    if (event.op === "add") state.users.set(person.user_id, person);
    else if (event.op === "remove") {
      const user = state.users.get(person.user_id);
      if (user) user.is_active = false;
    } else if (event.op === "update") {
      const user = state.users.get(person.user_id);
      if (!user) return;
      Object.assign(user, person);
      if (person.role !== undefined) {
        user.is_owner = person.role === 100;
        user.is_admin = person.role <= 200;
        user.is_guest = person.role === 600;
      }
    }
  },
  realm_user_groups(event) {},
  user_group(event) {
    if (event.op === "add") state.groups.set(event.group.id, event.group);
    else if (event.op === "remove") state.groups.delete(event.group_id);
    else {
      const group = state.groups.get(event.group_id);
      if (!group) return;
      if (event.op === "update") Object.assign(group, event.data);
      else if (event.op === "add_members") group.members = [...new Set([...group.members, ...event.user_ids])];
      else if (event.op === "remove_members") group.members = group.members.filter((id) => !event.user_ids.includes(id));
    }
  },
  realm(event) {
    if (event.op === "update") state.realm["realm_" + event.property] = event.value;
    else if (event.op === "update_dict") for (const [k, v] of Object.entries(event.data)) state.realm["realm_" + k] = v;
  },
  realm_linkifiers(event) {
    state.realm.realm_linkifiers = event.realm_linkifiers;
  },
  realm_playgrounds(event) {
    state.realm.realm_playgrounds = event.realm_playgrounds;
  },
  default_streams(event) {
    state.realm.realm_default_streams = event.default_streams;
  },
  user_settings(event) {
    if (event.op === "update") state.settings[event.property] = event.value;
  },
  user_status(event) {
    // Only the fields that changed come in the event; an empty text clears the status.
    const status = { ...state.userStatus.get(event.user_id) };
    for (const key of ["status_text", "away", "emoji_name", "emoji_code", "reaction_type"])
      if (event[key] !== undefined) status[key] = event[key];
    state.userStatus.set(event.user_id, status);
  },
  drafts(event) {
    if (event.op === "add") for (const d of event.drafts) state.drafts.set(d.id, d);
    else if (event.op === "update") state.drafts.set(event.draft.id, event.draft);
    else if (event.op === "remove") state.drafts.delete(event.draft_id);
  },
  scheduled_messages(event) {
    if (event.op === "add") for (const m of event.scheduled_messages) state.scheduled.set(m.scheduled_message_id, m);
    else if (event.op === "update") state.scheduled.set(event.scheduled_message.scheduled_message_id, event.scheduled_message);
    else if (event.op === "remove") state.scheduled.delete(event.scheduled_message_id);
  },
  user_topic(event) {
    state.userTopics.set(topicKey(event.stream_id, event.topic_name), event.visibility_policy);
  },
  presence(event) {
    // Kept in the slim form of the register response: user id -> last active and idle times.
    const key = String(event.user_id ?? event.email);
    const previous = state.presence.get(key) ?? {};
    let active = previous.active_timestamp ?? 0;
    let idle = previous.idle_timestamp ?? 0;
    for (const info of Object.values(event.presence ?? {})) {
      if (info.status === "active") active = Math.max(active, info.timestamp);
      idle = Math.max(idle, info.timestamp);
    }
    state.presence.set(key, { active_timestamp: active, idle_timestamp: idle });
  },
};

export function applyEvent(event) {
  handlers[event.type]?.(event);
  bus.emit("event", event);
  bus.emit("event:" + event.type, event);
}
