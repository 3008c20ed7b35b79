"""The chat's browser client: the login and shell pages (Jinja2), and the static ES modules and CSS
of the client itself, served with content-hashed names."""
