"""The wiki in a browser: `/wiki/{title}` and `/w/index.php` pages, and the file pages."""
