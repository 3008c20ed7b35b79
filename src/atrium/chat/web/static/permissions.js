// What the signed-in person may do, from their role and the organization's policies, so that
// each screen offers only the controls that would work. The server still checks every request;
// this only keeps people from meeting buttons that can only fail.

import { state } from "./state.js";

const ROLE_OWNER = 100;
const ROLE_ADMIN = 200;
const ROLE_MODERATOR = 300;
const ROLE_MEMBER = 400;
const ROLE_GUEST = 600;

// Zulip's common policy codes.
const MEMBERS = 1;
const ADMINS = 2;
const FULL_MEMBERS = 3;
const MODERATORS = 4;
const EVERYONE = 5;
const NOBODY = 6;
const OWNERS = 7;

// bot_creation_policy: everyone, only generic bots for members, administrators only.
const BOTS_ADMINS_ONLY = 3;

export function myRole() {
  return state.users.get(state.me)?.role ?? ROLE_GUEST;
}

function fullMember() {
  const me = state.users.get(state.me);
  const days = state.realm.realm_waiting_period_threshold ?? 0;
  const joined = Date.parse(me?.date_joined ?? "") || 0;
  return myRole() <= ROLE_MEMBER && Date.now() - joined >= days * 86400 * 1000;
}

export function satisfies(policy) {
  const role = myRole();
  if (policy === NOBODY) return false;
  if (policy === OWNERS) return role === ROLE_OWNER;
  if (policy === ADMINS) return role <= ROLE_ADMIN;
  if (policy === MODERATORS) return role <= ROLE_MODERATOR;
  if (policy === EVERYONE) return true;
  if (role === ROLE_GUEST) return false;
  if (policy === FULL_MEMBERS) return role <= ROLE_MODERATOR || fullMember();
  return policy === MEMBERS || policy === undefined;
}

export const isAdministrator = () => myRole() <= ROLE_ADMIN;
export const isOwner = () => myRole() === ROLE_OWNER;
export const isGuest = () => myRole() === ROLE_GUEST;

export const canInvite = () => !isGuest() && satisfies(state.realm.realm_invite_to_realm_policy ?? MEMBERS);
export const canCreateInviteLinks = isAdministrator;
export const canSubscribeOthers = () => satisfies(state.realm.realm_invite_to_stream_policy ?? MEMBERS);
export const canEditStreams = isAdministrator;
export const canCreateBots = () => !isGuest() && (state.realm.realm_bot_creation_policy !== BOTS_ADMINS_ONLY || isAdministrator());
export const canAddEmoji = () => satisfies(state.realm.realm_add_custom_emoji_policy ?? MEMBERS);
export const canDeleteEmoji = (emoji) => isAdministrator() || emoji.author_id === state.me;

// The roles this person may give an invitee: no higher than their own.
export function invitableRoles() {
  const roles = [
    [ROLE_GUEST, "Guest"],
    [ROLE_MEMBER, "Member"],
    [ROLE_MODERATOR, "Moderator"],
    [ROLE_ADMIN, "Administrator"],
    [ROLE_OWNER, "Owner"],
  ];
  const mine = myRole();
  return roles.filter(([role]) => (role === ROLE_OWNER ? mine === ROLE_OWNER : role === ROLE_ADMIN ? mine <= ROLE_ADMIN : true));
}
export const canCreateStreams = () => satisfies(state.realm.realm_create_public_stream_policy ?? MEMBERS) || satisfies(state.realm.realm_create_private_stream_policy ?? MEMBERS);
// Renaming a topic (also resolving it), and moving messages to another stream.
export const canEditTopics = () => satisfies(state.realm.realm_edit_topic_policy ?? EVERYONE);
export const canMoveBetweenStreams = () => satisfies(state.realm.realm_move_messages_between_streams_policy ?? MEMBERS);
