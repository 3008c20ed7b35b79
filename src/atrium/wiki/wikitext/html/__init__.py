"""Wikitext to HTML: the page renderer and its blocks, tables, table of contents and media, and the
smaller renderer of interface messages."""
