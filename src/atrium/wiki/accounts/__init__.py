"""Who may do what: user groups and rights, bot-password grants, user names, password policy."""
