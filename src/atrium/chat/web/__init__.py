"""The chat service's server-rendered pages (Jinja2, autoescaped, no inline script or style)."""
