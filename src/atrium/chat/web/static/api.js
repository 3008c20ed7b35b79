// The chat API under /json: the same endpoints as /api/v1, authenticated by the session cookie,
// with the session's CSRF token on every state change (as Zulip's web app does).

// Outside a page (as under `node --test`) there is no token.
const CSRF = globalThis.document?.querySelector('meta[name="csrf-token"]')?.content ?? "";

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.msg || `HTTP ${status}`);
    this.status = status;
    this.code = body?.code;
    this.body = body;
  }
}

function encode(params) {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value === undefined) continue;
    form.append(key, typeof value === "string" ? value : JSON.stringify(value));
  }
  return form;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function call(method, path, params, { signal } = {}, attempt = 0) {
  let url = "/json" + path;
  const init = { method, credentials: "same-origin", headers: {}, signal };
  if (method === "GET") {
    const query = encode(params).toString();
    if (query) url += "?" + query;
  } else {
    init.headers["X-CSRFToken"] = CSRF;
    if (params instanceof FormData) init.body = params;
    else {
      init.body = encode(params);
      init.headers["Content-Type"] = "application/x-www-form-urlencoded";
    }
  }
  const response = await fetch(url, init);
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (response.status === 429 && attempt < 3) {
    // Over the per-user rate limit: wait as long as the server says, then try again.
    await sleep(Math.min(60, Number(body?.["retry-after"] ?? 1)) * 1000 + 100);
    return call(method, path, params, { signal }, attempt + 1);
  }
  if (!response.ok || body?.result !== "success") {
    // The session ended (expired, or signed out elsewhere): connection.js says so and offers
    // to sign in again; nothing typed is dropped by leaving the page at once.
    if (response.status === 401) globalThis.dispatchEvent?.(new Event("atrium:unauthorized"));
    throw new ApiError(response.status, body);
  }
  return body;
}

export const get = (path, params, options) => call("GET", path, params, options);
export const post = (path, params, options) => call("POST", path, params, options);
export const patch = (path, params) => call("PATCH", path, params);
export const del = (path, params) => call("DELETE", path, params);
