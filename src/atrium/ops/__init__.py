"""Running Atrium for a team: the organization's creation, backups and their restore, upgrades,
and what an operator watches (health, readiness, metrics, access logs).

It sits above both services and core, beside the CLI and the server: nothing below imports it.
"""
