"""The wiki's read side, like chat's `queries/`: pages, revisions, links, the page view, users and
sessions, read for the API, the browser pages and the writes alike."""
