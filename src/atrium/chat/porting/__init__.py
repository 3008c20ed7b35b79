"""Moving an organization in and out: Zulip's organization export, read and written."""
