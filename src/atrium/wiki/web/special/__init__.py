"""The Special pages (`Special:RecentChanges`, `Special:Protect`, …): one module per page, named for
it, each a thin handler over the same reads and changes the API uses; `registry` is the table
`Special:SpecialPages` lists and the dispatcher of `/wiki/Special:…`."""
