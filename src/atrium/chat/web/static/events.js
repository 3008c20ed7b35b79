// The event loop: POST /register for the initial state and a queue, then long-polled
// GET /events. A failed poll retries with a backoff capped at RETRY_CAP_MS, so that the client
// is back within a few seconds of the server's return ("Try now" retries at once);
// BAD_EVENT_QUEUE_ID (the queue expired, the server restarted) re-registers and tells the views
// to reload what they show. A 401 (the session ended) stops the loop.

import { ApiError, get, post } from "./api.js";
import { applyEvent, bus, loadState, state } from "./state.js";

const REGISTER_PARAMS = {
  apply_markdown: true,
  client_gravatar: true,
  slim_presence: true,
  include_subscribers: true,
  client_capabilities: {
    notification_settings_null: true,
    bulk_message_deletion: true,
    user_avatar_url_field_optional: false,
    stream_typing_notifications: true,
    user_settings_object: true,
  },
};

let generation = 0;

export async function register() {
  const data = await post("/register", REGISTER_PARAMS);
  loadState(data);
  bus.emit("state", data);
  return data;
}

// Polling a server that does not answer costs little, and people notice a wait far more.
const RETRY_CAP_MS = 2000;
let wake = null;

// A wait that `retryNow` ends early.
const sleep = (ms) =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      if (wake === done) wake = null;
      resolve();
    }
    wake = done;
  });

export function retryNow() {
  wake?.();
}

const backoff = (failures) => Math.min(RETRY_CAP_MS, 250 * 2 ** Math.min(failures, 6)) * (0.75 + Math.random() / 4);

async function reRegister() {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await register();
      bus.emit("connection", "ok");
      bus.emit("reloaded");
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return false;
      bus.emit("connection", "lost");
      await sleep(backoff(attempt + 1));
    }
  }
}

export function startEventLoop() {
  const mine = ++generation;
  (async () => {
    let failures = 0;
    while (mine === generation) {
      try {
        const body = await get("/events", { queue_id: state.queueId, last_event_id: state.lastEventId });
        failures = 0;
        bus.emit("connection", "ok");
        for (const event of body.events) {
          if (event.id > state.lastEventId) state.lastEventId = event.id;
          if (event.type !== "heartbeat") applyEvent(event);
        }
      } catch (error) {
        if (error instanceof ApiError && error.code === "BAD_EVENT_QUEUE_ID") {
          if (!(await reRegister())) return;
          continue;
        }
        if (error instanceof ApiError && error.status === 401) return;
        failures += 1;
        bus.emit("connection", "lost");
        await sleep(backoff(failures));
      }
    }
  })();
}

export function stopEventLoop() {
  generation += 1;
}

window.addEventListener("pagehide", () => {
  if (state.queueId) {
    const token = document.querySelector('meta[name="csrf-token"]')?.content ?? "";
    fetch("/json/events?queue_id=" + encodeURIComponent(state.queueId), {
      method: "DELETE",
      keepalive: true,
      credentials: "same-origin",
      headers: { "X-CSRFToken": token },
    }).catch(() => {});
  }
});
