"""The chat's browser side: server-rendered pages (Jinja2, autoescaped, no inline script or
style) such as login, sign-up and the client's shell, and the client's static ES modules and CSS,
served with content-hashed names."""
