"""The parts of `action=parse` that describe the parse rather than the page: the limit report
(`limitreportdata`, `limitreporthtml`, in MediaWiki's names, limits and wording) and the category
box (`categorieshtml`), built from a `Parsed` as MediaWiki builds them from its ParserOutput."""

from __future__ import annotations

import html
from typing import Any

from atrium.wiki.api.context import Out
from atrium.wiki.reads.parsing import Parsed
from atrium.wiki.titles import NS_CATEGORY, TitleParser

# MediaWiki 1.39's default limits ($wgMaxPPNodeCount, $wgMaxArticleSize as include size, the
# expansion depth, expensive functions, unstrip depth and size).
_LIMITS = {
    "limitreport-ppvisitednodes": 1_000_000,
    "limitreport-postexpandincludesize": 2_097_152,
    "limitreport-templateargumentsize": 2_097_152,
    "limitreport-expansiondepth": 100,
    "limitreport-expensivefunctioncount": 100,
    "limitreport-unstrip-depth": 20,
    "limitreport-unstrip-size": 5_000_000,
}
_LABELS = {
    "limitreport-cputime": ("CPU time usage", "{} seconds"),
    "limitreport-walltime": ("Real time usage", "{} seconds"),
    "limitreport-ppvisitednodes": ("Preprocessor visited node count", "{}/{}"),
    "limitreport-postexpandincludesize": ("Post-expand include size", "{}/{} bytes"),
    "limitreport-templateargumentsize": ("Template argument size", "{}/{} bytes"),
    "limitreport-expansiondepth": ("Highest expansion depth", "{}/{}"),
    "limitreport-expensivefunctioncount": ("Expensive parser function count", "{}/{}"),
    "limitreport-unstrip-depth": ("Unstrip recursion depth", "{}/{}"),
    "limitreport-unstrip-size": ("Unstrip post-expand size", "{}/{} bytes"),
}
_PROFILE_LINES = 10


def _values(parsed: Parsed) -> list[tuple[str, list[Any]]]:
    stats = parsed.rendered.stats
    counts = {
        "limitreport-ppvisitednodes": stats.visited,
        "limitreport-postexpandincludesize": stats.post_expand,
        "limitreport-templateargumentsize": stats.argument_size,
        "limitreport-expansiondepth": stats.highest_depth,
        # No parser function of this wiki is expensive (#ifexist and the like are not offered).
        "limitreport-expensivefunctioncount": 0,
        # Strip markers are put back in one pass, never nested.
        "limitreport-unstrip-depth": 0,
        "limitreport-unstrip-size": parsed.rendered.unstripped,
    }
    rows: list[tuple[str, list[Any]]] = [
        ("limitreport-cputime", [f"{parsed.timing.cpu_seconds:.3f}"]),
        ("limitreport-walltime", [f"{parsed.timing.wall_seconds:.3f}"]),
    ]
    rows += [(name, [value, _LIMITS[name]]) for name, value in counts.items()]
    return rows


def _profile(parsed: Parsed) -> list[str]:
    """`limitreport-timingprofile`: the total, then the slowest templates (inclusive times)."""
    stats = parsed.rendered.stats
    total = stats.total_ms
    lines = [(total, 1, "-total")]
    ranked = sorted(stats.templates.items(), key=lambda item: -item[1][0])[:_PROFILE_LINES]
    lines += [(ms, int(count), name) for name, (ms, count) in ranked]
    return [
        f"{(100.0 * ms / total if total else 100.0):6.2f}% {ms:8.3f} {count:6d} {name}"
        for ms, count, name in lines
    ]


def limit_report_data(parsed: Parsed, fv: int) -> list[dict[str, Any]]:
    """`limitreportdata`: each entry's values under "0", "1", … as ApiParse lists them."""
    entries: list[dict[str, Any]] = []
    for name, values in [
        *_values(parsed),
        ("limitreport-timingprofile", _profile(parsed)),
        ("cachereport-timestamp", [parsed.timing.parsed_at]),
        ("cachereport-ttl", [parsed.rendered.stats.cache_expiry]),
    ]:
        entry: dict[str, Any] = {"name": name}
        entry.update({str(i): value for i, value in enumerate(values)})
        entries.append(entry)
    transient: dict[str, Any] = {"name": "cachereport-transientcontent"}
    Out(fv).flag(transient, "0", parsed.rendered.stats.cache_expiry < 86400)
    entries.append(transient)
    return entries


def limit_report_html(parsed: Parsed) -> str:
    """`limitreporthtml`: the "Parser profiling data" table of an edit preview."""
    rows = []
    for name, values in _values(parsed):
        label, shape = _LABELS[name]
        shown = [f"{v:,}" if isinstance(v, int) else v for v in values]
        value = shape.format(*shown)
        if name in ("limitreport-cputime", "limitreport-walltime") and values[0] == "1.000":
            value = value.replace("seconds", "second")
        rows.append(f"<tr><th>{label}</th><td>{value}</td></tr>")
    return (
        '<div class="mw-limitReportExplanation"><p>Parser profiling data:\n</p></div>'
        '<div class="preview-limit-report-wrapper"><table class="preview-limit-report wikitable">'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def limit_report_comment(parsed: Parsed) -> str:
    """The two HTML comments MediaWiki's parser appends to its output when the limit report is
    on: "NewPP limit report" (English labels, plain numbers, every "-" made U+2010 so the
    comment cannot be closed early) and the transclusion time report."""
    stats = parsed.rendered.stats
    lines = [
        "NewPP limit report",
        f"Cached time: {parsed.timing.parsed_at}",
        f"Cache expiry: {stats.cache_expiry}",
        f"Reduced expiry: {'true' if stats.cache_expiry < 86400 else 'false'}",
        "Complications: []",
    ]
    for name, values in _values(parsed):
        label, shape = _LABELS[name]
        lines.append(f"{label}: {shape.format(*values)}")
    report = "\n".join(lines) + "\n"
    report = report.replace("-", "\u2010").replace("&", "&amp;")
    profile = _profile(parsed)
    return (
        f"\n<!-- \n{report}-->\n"
        "<!--\nTransclusion expansion time report (%,ms,calls,template)\n"
        + "\n".join(profile)
        + "\n-->\n"
    )


def _category_link(parser: TitleParser, name: str, exists: bool) -> str:
    key = html.escape(parser.prefixed_dbkey(NS_CATEGORY, name))
    title = html.escape(parser.prefixed_text(NS_CATEGORY, name))
    text = html.escape(name.replace("_", " "))
    if exists:
        return f'<li><a href="/wiki/{key}" title="{title}">{text}</a></li>'
    return (
        f'<li><a href="/w/index.php?title={key}&amp;action=edit&amp;redlink=1" class="new" '
        f'title="{title} (page does not exist)">{text}</a></li>'
    )


def categories_html(parser: TitleParser, parsed: Parsed) -> str:
    """`categorieshtml`: the skin's category box, visible categories first, then the hidden
    ones in a box of their own that the default preferences keep hidden."""
    shown = [n for n in parsed.rendered.categories if n not in parsed.hidden_categories]
    hidden = [n for n in parsed.rendered.categories if n in parsed.hidden_categories]
    boxes = []
    if shown:
        label = "Category" if len(shown) == 1 else "Categories"
        links = "".join(_category_link(parser, n, n in parsed.existing_categories) for n in shown)
        boxes.append(
            '<div id="mw-normal-catlinks" class="mw-normal-catlinks">'
            f'<a href="/wiki/Special:Categories" title="Special:Categories">{label}</a>: '
            f"<ul>{links}</ul></div>"
        )
    if hidden:
        label = "Hidden category" if len(hidden) == 1 else "Hidden categories"
        links = "".join(_category_link(parser, n, True) for n in hidden)
        boxes.append(
            '<div id="mw-hidden-catlinks" class="mw-hidden-catlinks mw-hidden-cats-hidden">'
            f"{label}: <ul>{links}</ul></div>"
        )
    classes = "catlinks" if shown else "catlinks catlinks-allhidden"
    return f'<div id="catlinks" class="{classes}" data-mw="interface">{"".join(boxes)}</div>'
