"""The reference wiki's pages (as `mediawiki-ref.sh seed` creates them), saved through the API."""

from __future__ import annotations

from typing import Any

INFOBOX = (
    "<div class=\"infobox\">'''{{{name|Unnamed}}}''' — colour: {{{colour|unknown}}}</div>"
    "<noinclude>Infobox for fruit pages. [[Category:Templates]]</noinclude>"
)

PAGES: list[tuple[str, str, str]] = [
    ("Template:Infobox fruit", INFOBOX, "seed template"),
    (
        "Template:Stub",
        "''This article is a stub.''<noinclude>[[Category:Templates]]</noinclude>",
        "seed template",
    ),
    ("Category:Fruit", "Pages about fruit. [[Category:Food]]", "seed category"),
    ("Category:Food", "Everything edible.", "seed category"),
    (
        "Apple",
        "{{Infobox fruit|name=Apple|colour=red}}\n"
        "An '''apple''' is the edible fruit of the apple tree. Compare with [[Banana]] and "
        "[[Cherry]]; see also [[Orchard]] (red link).\n== History ==\n"
        "Apples have been grown for thousands of years.\n[[Category:Fruit]]",
        "seed",
    ),
    (
        "Banana",
        "{{Infobox fruit|name=Banana|colour=yellow}}\n"
        "A '''banana''' is an elongated, edible fruit. It is often compared to the [[Apple]].\n"
        "{{Stub}}\n[[Category:Fruit]] [[Category:Yellow things]]",
        "seed",
    ),
    (
        "Cherry",
        "{{Infobox fruit|name=Cherry|colour=red}}\n"
        "A '''cherry''' is the fruit of plants of the genus Prunus. Not to be confused with an "
        "[[Apple]].\n[[Category:Fruit]]",
        "seed",
    ),
    ("Pomme", "#REDIRECT [[Apple]]", "seed redirect"),
    ("Malus", "#REDIRECT [[Apple#History]]", "seed redirect with fragment"),
    (
        "Main Page",
        "Welcome to RefWiki, a reference wiki. Start with [[Apple]], [[Banana]] or [[Pomme]]. "
        "Browse [[:Category:Fruit]].",
        "seed main page",
    ),
    ("Help:Searching", "Use the search box to find an [[Apple]] or other fruit.", "seed help"),
    ("Talk:Apple", "Is a crab apple an [[Apple]]? --[[User:Admin|Admin]]", "seed talk"),
    ("User:Admin", "Administrator of this reference wiki.", "seed user page"),
] + [
    (
        f"Filler page {i:02d}",
        f"Filler page number {i:02d} about fruit salad. Links to [[Apple]].{{{{Stub}}}}",
        "seed filler",
    )
    for i in range(1, 16)
]


async def seed(wiki: Any, client: Any) -> None:
    """Log in as Admin and create every page with action=edit."""
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    for title, text, summary in PAGES:
        result = await wiki.post(
            client, action="edit", title=title, text=text, summary=summary, token=token
        )
        assert result["edit"]["result"] == "Success", result
