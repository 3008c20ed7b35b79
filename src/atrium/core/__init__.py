"""Service-agnostic infrastructure shared by chat and wiki; it imports neither."""
