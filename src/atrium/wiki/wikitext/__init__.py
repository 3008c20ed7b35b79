"""Wikitext, pure: text in, text or a tree out (the preprocessor, template expansion, parser
functions, the pre-save transform, link extraction, escaping). `html/` renders it to HTML."""
