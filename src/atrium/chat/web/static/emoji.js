// Emoji by name, from the server's own table (served as emoji_data.js), for the typeahead,
// the reaction picker and showing reactions.

import { EMOJI } from "./emoji_data.js";

export function emojiChar(code) {
  try {
    return String.fromCodePoint(...code.split("-").map((part) => parseInt(part, 16)));
  } catch {
    return "";
  }
}

export function emojiByName(name) {
  const code = EMOJI[name];
  return code ? { name, code, char: emojiChar(code) } : null;
}

export function searchEmoji(prefix, limit = 8) {
  const query = prefix.toLowerCase();
  const out = [];
  for (const name of Object.keys(EMOJI)) {
    if (name.startsWith(query)) out.push(emojiByName(name));
    if (out.length >= limit) break;
  }
  if (out.length < limit)
    for (const name of Object.keys(EMOJI)) {
      if (!name.startsWith(query) && name.includes(query)) out.push(emojiByName(name));
      if (out.length >= limit) break;
    }
  return out;
}

export const POPULAR = ["+1", "tada", "smile", "heart", "working_on_it", "octopus", "check", "eyes"];
