"""Carry MediaWiki 1.39's texts of the messages the wiki API uses into `atrium/wiki/messages/i18n/`.

    python tools/extract_wiki_i18n.py [/usr/share/mediawiki]

Reads the reference install (`../shared/reference/mediawiki/mediawiki-ref.sh`): the i18n JSON of
core, the API and ParamValidator, and every `languages/messages/Messages*.php` for fallback chains,
number separators and nothing else. Writes one JSON file per language that holds at least one of
the keys, and `languages.json` with the fallback chains of the languages served here: en, de, fr,
their regional variants (de-at, de-ch, de-formal, ... with their own texts), and every language
whose chain reaches de or fr and whose own files lack every key (it renders through its chain
exactly as MediaWiki). Other languages, with texts of their own not carried here, fall back to en.

The keys are the messages of MediaWiki's English files that `src/atrium/wiki` names: every string
literal with a hyphen or underscore, the first argument of `api(...)` and `Message(...)` (one-word
keys such as `noname`), `ChangeError`'s key argument and `apierror-<code>` for its code, plus the
list and separator messages below.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "src" / "atrium" / "wiki"
OUT = SOURCE / "messages" / "i18n"
I18N_DIRS = ("languages/i18n", "includes/api/i18n", "includes/libs/ParamValidator/i18n")
GROUPS = ("bot", "sysop", "bureaucrat", "interface-admin", "suppress", "user", "autoconfirmed")
LANGUAGES = ("en", "de", "fr")  # served languages; their fallback relatives come along
EXTRA_KEYS = (
    "and",
    "comma-separator",
    "word-separator",
    "semicolon-separator",
    "pipe-separator",
    "contribslink",  # {{int:contribslink}} in alreadyrolled
    # refusals whose one-word keys the literal scan below does not catch
    "protectedpagetext",
    "protectedinterface",
    "titleprotected",
    "nocreatetext",
    "immobile-source-namespace",  # MovePage's refusals, keyed by the side
    "immobile-target-namespace",
    *(f"group-{g}" for g in GROUPS),
    *(f"grouppage-{g}" for g in GROUPS),
)
_KEYLIKE = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+")


def load(root: Path, code: str) -> dict[str, str]:
    texts: dict[str, str] = {}
    for folder in I18N_DIRS:
        path = root / folder / f"{code}.json"
        if path.exists():
            data = json.loads(path.read_text(encoding="utf-8"))
            texts.update({k: v for k, v in data.items() if not k.startswith("@")})
    return texts


def language_facts(root: Path) -> dict[str, dict[str, object]]:
    facts: dict[str, dict[str, object]] = {}
    for path in sorted((root / "languages" / "messages").glob("Messages*.php")):
        code = path.stem[len("Messages") :].replace("_", "-").lower()
        source = path.read_text(encoding="utf-8")
        match = re.search(r"^\$fallback\s*=\s*'([^']*)'", source, re.MULTILINE)
        fallback = [c.strip() for c in match.group(1).split(",")] if match else []
        table = re.search(r"^\$separatorTransformTable\s*=\s*\[([^\]]*)\]", source, re.MULTILINE)
        separators: dict[str, str] = {}
        if table:
            for key, value in re.findall(r"'([.,])'\s*=>\s*(\"[^\"]*\"|'[^']*')", table.group(1)):
                text = value[1:-1]
                separators[key] = re.sub(
                    r"\\u\{([0-9A-Fa-f]+)\}", lambda m: chr(int(m.group(1), 16)), text
                )
        facts[code] = {"fallback": fallback, "separators": separators}
    return facts


def chain(facts: dict[str, dict[str, object]], code: str) -> list[str]:
    seen: list[str] = []
    todo = list(facts.get(code, {}).get("fallback", []))  # type: ignore[call-overload]
    while todo:
        item = todo.pop(0)
        if item not in seen and item != "en":
            seen.append(item)
            todo = list(facts.get(item, {}).get("fallback", [])) + todo  # type: ignore[call-overload]
    return seen


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _source_keys(tree: ast.AST) -> set[str]:
    """Candidate keys of one module: every hyphenated or underscored string literal, the key of
    `api(...)`/`Message(...)` calls, and `ChangeError`'s key (or `apierror-<code>`)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        text = _literal(node) if isinstance(node, ast.expr) else None
        if text is not None and _KEYLIKE.fullmatch(text):
            found.add(text)
        if not isinstance(node, ast.Call):
            continue
        name = _call_name(node)
        args: list[ast.expr | None] = [*node.args, None, None, None]
        keywords = {k.arg: k.value for k in node.keywords}
        if name in ("api", "Message"):
            found.update(filter(None, [_literal(args[0])]))
        elif name == "ChangeError":
            code, key = _literal(args[0]), _literal(args[2] or keywords.get("key"))
            found.update(filter(None, [key, code and f"apierror-{code}"]))
    return found


def used_keys(english: dict[str, str]) -> list[str]:
    keys: set[str] = set(EXTRA_KEYS)
    for path in SOURCE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        keys.update(key for key in _source_keys(tree) if key in english)
    return sorted(keys)


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/mediawiki")
    facts = language_facts(root)
    english = load(root, "en")
    keys = used_keys(english)
    served = {code: chain(facts, code) for code in facts if code in LANGUAGES}
    for code in facts:
        links = chain(facts, code)
        if any(link in LANGUAGES for link in links):
            served[code] = links
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    written: dict[str, object] = {}
    picks = {code: {k: v for k, v in load(root, code).items() if k in keys} for code in served}
    eligible = {
        code
        for code in served
        if not picks[code] or code in LANGUAGES or code.split("-")[0] in LANGUAGES
    }
    for code in sorted(eligible):
        picked = picks[code]
        if any(link not in eligible for link in served[code]):
            continue  # a link of its chain has texts not carried here
        if picked:
            (OUT / f"{code}.json").write_text(
                json.dumps(picked, ensure_ascii=False, indent=1, sort_keys=True) + "\n",
                encoding="utf-8",
            )
        written[code] = {
            "fallback": served[code],
            "separators": facts[code]["separators"],
            "messages": bool(picked),
        }
    (OUT / "languages.json").write_text(
        json.dumps(written, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    print(f"{len(keys)} keys, {len(written)} languages -> {OUT}")


if __name__ == "__main__":
    main()
