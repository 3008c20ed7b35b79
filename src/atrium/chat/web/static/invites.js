// Inviting people: by email (one invitation per address) or, for administrators, a reusable
// link; each with the role and the streams the newcomer starts in. Pending invitations are
// listed with their links (there may be no mail server, so the inviter can pass a link on),
// and can be resent or revoked. The role choices stop at the inviter's own rank.

import { del, get, post } from "./api.js";
import { clear, el, toast } from "./dom.js";
import { field, openDialog } from "./overlay.js";
import { canCreateInviteLinks, canInvite, invitableRoles } from "./permissions.js";
import { bus, state, userName } from "./state.js";

const EXPIRY = [
  [24 * 60, "1 day"],
  [3 * 24 * 60, "3 days"],
  [10 * 24 * 60, "10 days"],
  [30 * 24 * 60, "30 days"],
  ["never", "Never expires"],
];
const ROLE_MEMBER = 400;

function select(id, label, pairs, selected) {
  const node = el("select", { id, "aria-label": label });
  for (const [value, text] of pairs) node.append(el("option", { value: String(value), selected: value === selected, text }));
  return node;
}

function streamChoices() {
  const defaults = new Set((state.realm.realm_default_streams ?? []).map((s) => (typeof s === "number" ? s : s.stream_id)));
  const box = el("fieldset", { class: "stream-choices", id: "invite-streams" }, el("legend", { text: "Streams they join" }));
  for (const stream of [...state.streams.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    // Only streams the inviter is in or that are public may be given.
    if (stream.invite_only && !state.subs.has(stream.stream_id)) continue;
    const check = el("input", { type: "checkbox", value: String(stream.stream_id), checked: defaults.has(stream.stream_id) });
    box.append(el("label", { class: "check" }, check, " " + stream.name));
  }
  return box;
}

const chosenStreams = (box) => [...box.querySelectorAll("input:checked")].map((c) => Number(c.value));
const expiry = (node) => (node.value === "never" ? null : Number(node.value));

function failure(error) {
  // INVITATION_FAILED lists the addresses and why each was refused.
  const details = (error.body?.errors ?? []).map(([email, reason]) => `${email}: ${reason}`).join("; ");
  toast(details ? `${error.message} ${details}` : error.message);
}

function linkBox(url, label) {
  const input = el("input", { type: "text", readonly: true, value: url, class: "invite-link", "aria-label": label });
  const copy = el("button", {
    type: "button",
    text: "Copy",
    onclick: async () => {
      input.select();
      try {
        await navigator.clipboard.writeText(url);
        toast("Link copied");
      } catch {
        toast("Select the link and copy it.");
      }
    },
  });
  return el("span", { class: "link-box" }, input, copy);
}

function invitationList() {
  const holder = el("div", { class: "invite-list", id: "invite-list" });
  const load = async () => {
    let invites;
    try {
      invites = (await get("/invites")).invites;
    } catch (error) {
      clear(holder).append(el("p", { text: error.message }));
      return;
    }
    const roles = new Map(invitableRoles());
    const rows = invites.map((invite) =>
      el(
        "tr",
        { dataset: { inviteId: String(invite.id) } },
        el("td", { text: invite.is_multiuse ? "Reusable link" : invite.email }),
        el("td", { text: roles.get(invite.invited_as) ?? String(invite.invited_as) }),
        el("td", { text: userName(invite.invited_by_user_id) }),
        el("td", {}, linkBox(invite.link_url, `Invitation link for ${invite.is_multiuse ? "reusable link" : invite.email}`)),
        el(
          "td",
          {},
          invite.is_multiuse ? null : el("button", { type: "button", text: "Resend", onclick: () => post(`/invites/${invite.id}/resend`).then(() => toast("Invitation resent"), failure) }),
          el("button", {
            type: "button",
            class: "danger",
            text: "Revoke",
            onclick: () => del(invite.is_multiuse ? `/invites/multiuse/${invite.id}` : `/invites/${invite.id}`).then(() => toast("Invitation revoked"), failure),
          }),
        ),
      ),
    );
    clear(holder).append(
      rows.length
        ? el("table", { class: "admin-table" }, el("thead", {}, el("tr", {}, ["Invited", "Role", "By", "Link", ""].map((h) => el("th", { scope: "col", text: h })))), el("tbody", {}, rows))
        : el("p", { text: "No pending invitations." }),
    );
  };
  load();
  holder.reload = load;
  return holder;
}

let reloadList = () => {};

export function invitationsPage() {
  if (!canInvite()) return el("p", { text: "Your organization does not let you invite people." });
  const emails = el("textarea", { id: "invite-emails", rows: "3", placeholder: "one@example.com, two@example.com", maxlength: "10000" });
  const role = select("invite-role", "Role", invitableRoles(), ROLE_MEMBER);
  const expires = select("invite-expiry", "Invitation expires after", EXPIRY, 10 * 24 * 60);
  const streams = streamChoices();
  const form = el(
    "form",
    { class: "dialog-form", "aria-label": "Invite by email" },
    field("Emails (comma- or line-separated)", emails),
    el("div", { class: "row" }, field("Role", role), field("Expires after", expires)),
    streams,
    el("button", { type: "submit", class: "primary", id: "send-invites", text: "Invite" }),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await post("/invites", { invitee_emails: emails.value, invite_as: Number(role.value), stream_ids: chosenStreams(streams), invite_expires_in_minutes: expiry(expires) });
      toast("Invitations sent");
      emails.value = "";
    } catch (error) {
      failure(error);
    }
  });
  const list = invitationList();
  reloadList = () => list.isConnected && list.reload();
  const parts = [form];
  if (canCreateInviteLinks()) {
    const made = el("div", { id: "new-invite-link" });
    const generate = el("button", {
      type: "button",
      id: "create-invite-link",
      text: "Create a reusable invitation link",
      onclick: async () => {
        try {
          const body = await post("/invites/multiuse", { invite_as: Number(role.value), stream_ids: chosenStreams(streams), invite_expires_in_minutes: expiry(expires) });
          clear(made).append(linkBox(body.invite_link, "New invitation link"));
        } catch (error) {
          failure(error);
        }
      },
    });
    parts.push(el("div", { class: "dialog-form" }, el("p", { text: "Or a link anyone can use to join, with the role and streams chosen above:" }), generate, made));
  }
  parts.push(el("h3", { text: "Pending invitations" }), list);
  return el("div", { class: "invitations" }, ...parts);
}

export function openInvitations() {
  openDialog("Invite people", invitationsPage(), { wide: true });
}

export function initInvitations() {
  bus.on("event:invites_changed", () => reloadList());
  bus.on("invite:open", openInvitations);
}
