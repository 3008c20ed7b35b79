// Organization pages for administrators: users (create, role, deactivate, reactivate),
// streams (create, rename, description, privacy, posting policy, subscribers), user groups,
// linkifiers, code playgrounds, default streams and organization settings. Each page calls
// the same endpoints as any API client; the server checks who may do what.

import { del, get, patch, post } from "./api.js";
import { clear, el, toast } from "./dom.js";
import { field } from "./overlay.js";
import { canCreateStreams, canEditStreams, canSubscribeOthers } from "./permissions.js";
import { bus, state, userName } from "./state.js";
import { WIKI, wikiPage } from "./wiki_settings.js";

const ROLES = [
  [100, "Owner"],
  [200, "Administrator"],
  [300, "Moderator"],
  [400, "Member"],
  [600, "Guest"],
];
const POST_POLICIES = [
  [1, "Anyone can post"],
  [2, "Only administrators can post"],
  [3, "Only full members can post"],
  [4, "Only moderators can post"],
];

async function attempt(promise, done) {
  try {
    const body = await promise;
    if (done) toast(done);
    return body;
  } catch (error) {
    toast(error.message);
    return null;
  }
}

function options(select, pairs, selected) {
  for (const [value, label] of pairs) select.append(el("option", { value: String(value), selected: value === selected, text: label }));
  return select;
}

function refreshing(build) {
  // A page that rebuilds itself when the state it shows changes.
  const holder = el("div", { class: "admin-page" });
  const draw = () => {
    if (!holder.isConnected && holder.dataset.drawn) return;
    holder.dataset.drawn = "1";
    clear(holder).append(build());
  };
  draw();
  bus.on("event", () => holder.isConnected && draw());
  return holder;
}

function usersPage() {
  const email = el("input", { type: "email", required: true, id: "new-user-email" });
  const name = el("input", { type: "text", required: true, id: "new-user-name" });
  const password = el("input", { type: "password", required: true, id: "new-user-password", autocomplete: "new-password" });
  const create = el("form", { class: "dialog-form inline", "aria-label": "Create a user" }, field("Email", email), field("Full name", name), field("Password", password), el("button", { type: "submit", class: "primary", id: "create-user", text: "Create user" }));
  create.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (await attempt(post("/users", { email: email.value, full_name: name.value, password: password.value }), "User created")) create.reset();
  });
  const table = () => {
    const body = el("tbody");
    for (const user of [...state.users.values()].filter((u) => !u.is_bot).sort((a, b) => a.full_name.localeCompare(b.full_name))) {
      const role = options(el("select", { "aria-label": `Role of ${user.full_name}` }), ROLES, user.role);
      role.addEventListener("change", () => attempt(patch(`/users/${user.user_id}`, { role: Number(role.value) }), "Role changed"));
      const active = user.is_active !== false;
      body.append(
        el(
          "tr",
          { dataset: { userId: String(user.user_id) } },
          el("td", { text: user.full_name }),
          el("td", { text: user.email }),
          el("td", {}, role),
          el(
            "td",
            {},
            active
              ? el("button", { type: "button", class: "danger", text: "Deactivate", disabled: user.user_id === state.me, onclick: () => attempt(del(`/users/${user.user_id}`), "Deactivated") })
              : el("button", { type: "button", text: "Reactivate", onclick: () => attempt(post(`/users/${user.user_id}/reactivate`), "Reactivated") }),
          ),
        ),
      );
    }
    return el("table", { class: "admin-table" }, el("thead", {}, el("tr", {}, ["Name", "Email", "Role", ""].map((h) => el("th", { scope: "col", text: h })))), body);
  };
  return el("div", {}, create, refreshing(table));
}

function streamEditor(stream) {
  const name = el("input", { type: "text", value: stream.name });
  const description = el("input", { type: "text", value: stream.description ?? "" });
  const privacy = options(el("select", {}), [["public", "Public"], ["private", "Private"]], stream.invite_only ? "private" : "public");
  const policy = options(el("select", {}), POST_POLICIES, stream.stream_post_policy ?? 1);
  const form = el("form", { class: "dialog-form" }, field("Name", name), field("Description", description), field("Who can see it", privacy), field("Who can post", policy), el("button", { type: "submit", class: "primary", text: "Save stream" }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const params = {};
    if (name.value !== stream.name) params.new_name = name.value;
    if (description.value !== (stream.description ?? "")) params.description = description.value;
    if ((privacy.value === "private") !== Boolean(stream.invite_only)) params.is_private = privacy.value === "private";
    if (Number(policy.value) !== (stream.stream_post_policy ?? 1)) params.stream_post_policy = Number(policy.value);
    if (Object.keys(params).length) await attempt(patch(`/streams/${stream.stream_id}`, params), "Stream saved");
  });
  const members = el("ul", { class: "member-list", "aria-label": "Subscribers" });
  const loadMembers = async () => {
    const body = await attempt(get(`/streams/${stream.stream_id}/members`));
    if (!body) return;
    clear(members);
    for (const id of body.subscribers)
      members.append(
        el(
          "li",
          {},
          userName(id),
          " ",
          (id === state.me || canEditStreams()) && el("button", {
            type: "button",
            class: "link-button",
            text: id === state.me ? "unsubscribe" : "remove",
            onclick: async () => {
              await attempt(del("/users/me/subscriptions", { subscriptions: [stream.name], principals: [id] }));
              loadMembers();
            },
          }),
        ),
      );
  };
  const add = el("input", { type: "text", placeholder: "Email to subscribe", "aria-label": "Email to subscribe" });
  const addForm = el("form", { class: "inline" }, add, el("button", { type: "submit", text: "Subscribe" }));
  addForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const user = [...state.users.values()].find((u) => u.email.toLowerCase() === add.value.trim().toLowerCase());
    if (!user) return toast("No such user");
    await attempt(post("/users/me/subscriptions", { subscriptions: [{ name: stream.name }], principals: [user.user_id] }));
    add.value = "";
    loadMembers();
  });
  loadMembers();
  const archive = el("button", { type: "button", class: "danger", text: "Archive stream", onclick: () => attempt(del(`/streams/${stream.stream_id}`), "Stream archived") });
  // Only the controls this person may use: others see the stream's description and members.
  const about = el("p", { class: "stream-description", text: stream.description || "No description." });
  return el("div", { class: "stream-editor" }, el("h3", { text: "#" + stream.name }), canEditStreams() ? form : about, el("h4", { text: "Subscribers" }), members, canSubscribeOthers() && addForm, canEditStreams() && archive);
}

function streamsPage({ streamId } = {}) {
  const name = el("input", { type: "text", required: true, id: "new-stream-name" });
  const description = el("input", { type: "text" });
  const privacy = options(el("select", {}), [["public", "Public"], ["private", "Private"]], "public");
  const create = el("form", { class: "dialog-form inline", "aria-label": "Create a stream" }, field("Stream name", name), field("Description", description), field("Privacy", privacy), el("button", { type: "submit", class: "primary", text: "Create stream" }));
  create.addEventListener("submit", async (event) => {
    event.preventDefault();
    const done = await attempt(
      post("/users/me/subscriptions", { subscriptions: [{ name: name.value, description: description.value }], invite_only: privacy.value === "private" }),
      "Stream created",
    );
    if (done) create.reset();
  });
  const detail = el("div", { class: "stream-detail" });
  const list = el("ul", { class: "admin-list" });
  for (const stream of [...state.streams.values()].sort((a, b) => a.name.localeCompare(b.name)))
    list.append(el("li", {}, el("button", { type: "button", class: "link-button", text: stream.name, onclick: () => clear(detail).append(streamEditor(stream)) })));
  if (streamId && state.streams.has(streamId)) detail.append(streamEditor(state.streams.get(streamId)));
  return el("div", {}, canCreateStreams() && create, el("div", { class: "split" }, list, detail));
}

function groupsPage() {
  const name = el("input", { type: "text", required: true });
  const description = el("input", { type: "text", required: true });
  const create = el("form", { class: "dialog-form inline", "aria-label": "Create a group" }, field("Group name", name), field("Description", description), el("button", { type: "submit", class: "primary", text: "Create group" }));
  create.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (await attempt(post("/user_groups/create", { name: name.value, description: description.value, members: [state.me] }), "Group created")) create.reset();
  });
  const table = () => {
    const list = el("ul", { class: "admin-list" });
    for (const group of [...state.groups.values()].filter((g) => !g.is_system_group)) {
      const add = el("input", { type: "text", placeholder: "Email to add", "aria-label": `Add to ${group.name}` });
      const form = el("form", { class: "inline" }, add, el("button", { type: "submit", text: "Add" }));
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        const user = [...state.users.values()].find((u) => u.email.toLowerCase() === add.value.trim().toLowerCase());
        if (!user) return toast("No such user");
        await attempt(post(`/user_groups/${group.id}/members`, { add: [user.user_id], delete: [] }), "Member added");
      });
      list.append(
        el(
          "li",
          {},
          el("strong", { text: group.name }),
          ` — ${group.description} — `,
          group.members.map(userName).join(", "),
          form,
          el("button", { type: "button", class: "danger", text: "Delete group", onclick: () => attempt(del(`/user_groups/${group.id}`), "Group deleted") }),
        ),
      );
    }
    return list;
  };
  return el("div", {}, create, refreshing(table));
}

function linkifiersPage() {
  const pattern = el("input", { type: "text", required: true, placeholder: "#(?P<id>[0-9]+)" });
  const template = el("input", { type: "text", required: true, placeholder: "https://tracker.example/{id}" });
  const create = el("form", { class: "dialog-form inline", "aria-label": "Add a linkifier" }, field("Pattern", pattern), field("URL template", template), el("button", { type: "submit", class: "primary", text: "Add linkifier" }));
  create.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (await attempt(post("/realm/filters", { pattern: pattern.value, url_template: template.value }), "Linkifier added")) create.reset();
  });
  const table = () => {
    const list = el("ul", { class: "admin-list" });
    for (const linkifier of state.realm.realm_linkifiers ?? [])
      list.append(el("li", {}, `${linkifier.pattern} → ${linkifier.url_template} `, el("button", { type: "button", class: "danger", text: "Delete", onclick: () => attempt(del(`/realm/filters/${linkifier.id}`)) })));
    return list;
  };
  return el("div", {}, create, refreshing(table));
}

function playgroundsPage() {
  const name = el("input", { type: "text", required: true });
  const language = el("input", { type: "text", required: true, placeholder: "Python" });
  const prefix = el("input", { type: "url", required: true, placeholder: "https://play.example/?code=" });
  const create = el("form", { class: "dialog-form inline", "aria-label": "Add a code playground" }, field("Name", name), field("Language", language), field("URL prefix", prefix), el("button", { type: "submit", class: "primary", text: "Add playground" }));
  create.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (await attempt(post("/realm/playgrounds", { name: name.value, pygments_language: language.value, url_prefix: prefix.value }), "Playground added")) create.reset();
  });
  const table = () => {
    const list = el("ul", { class: "admin-list" });
    for (const p of state.realm.realm_playgrounds ?? [])
      list.append(el("li", {}, `${p.name} (${p.pygments_language}) ${p.url_prefix ?? p.url_template ?? ""} `, el("button", { type: "button", class: "danger", text: "Delete", onclick: () => attempt(del(`/realm/playgrounds/${p.id}`)) })));
    return list;
  };
  return el("div", {}, create, refreshing(table));
}

function defaultStreamsPage() {
  const table = () => {
    const defaults = new Set((state.realm.realm_default_streams ?? []).map((s) => (typeof s === "number" ? s : s.stream_id)));
    const list = el("ul", { class: "admin-list" });
    for (const stream of [...state.streams.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      const on = defaults.has(stream.stream_id);
      const box = el("input", { type: "checkbox", checked: on });
      box.addEventListener("change", () => attempt((box.checked ? post : del)("/default_streams", { stream_id: stream.stream_id })));
      list.append(el("li", {}, el("label", { class: "check" }, box, " " + stream.name)));
    }
    return list;
  };
  return el("div", {}, el("p", { text: "New users are subscribed to these streams." }), refreshing(table));
}

function organizationPage() {
  const name = el("input", { type: "text", value: state.realm.realm_name ?? "" });
  const description = el("textarea", { rows: "3" });
  description.value = state.realm.realm_description ?? "";
  const editing = el("input", { type: "checkbox", checked: Boolean(state.realm.realm_allow_message_editing) });
  const limit = el("input", { type: "number", min: "0", value: String(state.realm.realm_message_content_edit_limit_seconds ?? "") });
  const form = el(
    "form",
    { class: "dialog-form" },
    field("Organization name", name),
    field("Description", description),
    el("label", { class: "check" }, editing, " Allow editing messages"),
    field("Edit time limit (seconds, empty for none)", limit),
    el("button", { type: "submit", class: "primary", text: "Save organization" }),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await attempt(
      patch("/realm", {
        name: name.value,
        description: description.value,
        allow_message_editing: editing.checked,
        message_content_edit_limit_seconds: limit.value === "" ? "unlimited" : Number(limit.value),
      }),
      "Organization saved",
    );
  });
  return form;
}

export function adminPages() {
  return {
    users: ["Users", usersPage],
    streams: ["Streams", streamsPage],
    groups: ["User groups", groupsPage],
    linkifiers: ["Linkifiers", linkifiersPage],
    playgrounds: ["Code playgrounds", playgroundsPage],
    default_streams: ["Default streams", defaultStreamsPage],
    organization: ["Organization", organizationPage],
    ...(WIKI ? { wiki: ["Wiki", wikiPage] } : {}),
  };
}
