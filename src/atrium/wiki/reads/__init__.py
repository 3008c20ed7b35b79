"""The wiki's read side: pages, revisions, links and renderings, read inside one transaction."""
