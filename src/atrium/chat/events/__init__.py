"""Real-time events: what actions announce, and the per-client queues that deliver them.

An action's transaction returns `Outcome(value, notices)`; `ChatRuntime.write` commits it and then
hands the notices to the `EventQueues` (in-process, or Redis in the scale-out mode), which append
each event to every queue of every user it concerns. `GET /events` long-polls a queue.
"""

from atrium.chat.events.bus import (
    EventQueues,
    MemoryEventQueues,
    Notice,
    Outcome,
    QueueOptions,
    RedisEventQueues,
    event_queues,
)

__all__ = [
    "EventQueues",
    "MemoryEventQueues",
    "Notice",
    "Outcome",
    "QueueOptions",
    "RedisEventQueues",
    "event_queues",
]
