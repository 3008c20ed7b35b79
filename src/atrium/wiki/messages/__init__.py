"""MediaWiki's interface messages: the message objects the API returns, their texts in each language
(`i18n/`, from MediaWiki's own files) and the on-wiki overrides in the MediaWiki namespace."""
