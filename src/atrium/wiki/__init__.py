"""The wiki service: a MediaWiki-compatible Action API at /w/api.php and pages at /wiki/<Title>."""
