"""The wiki's browser-facing pages and index.php endpoints."""
