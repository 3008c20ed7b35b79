"""The `meta=` modules: about the wiki and the caller rather than pages."""
