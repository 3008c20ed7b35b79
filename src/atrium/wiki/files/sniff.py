"""The type a file's first bytes show (MimeAnalyzer::guessMimeType for what matters here): the
raster types by their magic numbers, and SVG, HTML and scripts by their text."""

from __future__ import annotations

import re

HTML_DOCTYPE = re.compile(rb"<!doctype *x?html", re.IGNORECASE)
HTML_TAGS = (b"<body", b"<head", b"<html", b"<script")


def sniff_mime(head: bytes) -> str:
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if text.startswith((b"<?xml", b"<svg", b"<!doctype svg")) and b"<svg" in text:
        return "image/svg+xml"
    if HTML_DOCTYPE.search(text) or any(tag in text for tag in HTML_TAGS):
        return "text/html"
    if text.startswith(b"<?php"):
        return "application/x-php"
    if text.startswith(b"#!"):
        return "application/x-shellscript"
    return "unknown/unknown"
