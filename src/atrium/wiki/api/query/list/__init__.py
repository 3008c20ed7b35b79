"""The `list=` modules: lists of pages, users, revisions and events, most usable as generators."""
