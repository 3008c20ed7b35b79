"""Real-time events: what actions announce, and the per-client queues that deliver them.

An action's transaction returns `Outcome(value, notices)`; `ChatRuntime.write` commits it and then
hands the notices to the `EventBus`, which appends each event to every queue of every user it
concerns. `GET /events` long-polls a queue (see `queues.py`).
"""

from atrium.chat.events.bus import EventBus, Notice, Outcome

__all__ = ["EventBus", "Notice", "Outcome"]
