// The screens a team meets in its first days: the stream browser, invitations, bots and
// custom emoji, each in its own module; this wires them to the state and the events.

import { initBots } from "./bots.js";
import { initCustomEmoji } from "./custom_emoji.js";
import { initInvitations } from "./invites.js";
import { initStreamBrowser } from "./stream_browser.js";
import { initStreamPeers } from "./stream_peers.js";
import { bus, state } from "./state.js";

export function initOnboarding() {
  // The server's own bots (Welcome Bot, Notification Bot) are no organization's members.
  bus.on("state", (data) => {
    for (const bot of data.cross_realm_bots ?? []) if (!state.users.has(bot.user_id)) state.users.set(bot.user_id, bot);
  });
  initStreamPeers();
  initStreamBrowser();
  initInvitations();
  initBots();
  initCustomEmoji();
}
