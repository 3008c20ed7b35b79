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

// The emoji Zulip's typeahead puts first when their name matches: +1, tada, slight_smile,
// heart, working_on_it, octopus (by code point, so any of their names counts).
const POPULAR_CODES = new Set(["1f44d", "1f389", "1f642", "2764", "1f6e0", "1f419"]);

const baseCode = (code) => code.replace(/-fe0f$/, "");

// Zulip's ranking: popular emoji whose name has a word starting with the query, then the
// others by exact name, name starting with the query, and the rest containing it.
export function searchEmoji(prefix, limit = 8) {
  const query = prefix.toLowerCase().replaceAll(" ", "_");
  const popular = [];
  const exact = [];
  const starts = [];
  const within = [];
  for (const [name, code] of Object.entries(EMOJI)) {
    if (!name.includes(query)) continue;
    if (POPULAR_CODES.has(baseCode(code)) && name.split("_").some((word) => word.startsWith(query))) popular.push(name);
    else if (name === query) exact.push(name);
    else if (name.startsWith(query)) starts.push(name);
    else within.push(name);
  }
  return [...popular, ...exact, ...starts, ...within].slice(0, limit).map(emojiByName);
}

export const POPULAR = ["+1", "tada", "smile", "heart", "working_on_it", "octopus", "check", "eyes"];
