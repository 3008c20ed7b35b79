"""Thin HTTP handlers: declared parameters in, one action or query, the data fields out."""
