"""Uploaded files: metadata (with EXIF), thumbnails and where each file is stored."""
