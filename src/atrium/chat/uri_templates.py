"""RFC 6570 URI templates: is a string a valid template, and which variables does it use.

Expansion is `uritemplate`'s; that package accepts malformed templates, so validation is
the grammar of RFC 6570 section 2, level 4, checked here.
"""

from __future__ import annotations

import re

# Section 2.1: literals are any character but CTL, SP, DQUOTE, "'", "%" (except in a
# pct-encoding), "<", ">", "\\", "^", "`", "{", "|", "}".
_LITERAL = r"(?:[^\x00-\x20\"'%<>\\^`{|}\x7f]|%[0-9A-Fa-f]{2})"
_VARCHAR = r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})"
_VARNAME = rf"{_VARCHAR}(?:\.?{_VARCHAR})*"
_MODIFIER = r"(?::[1-9][0-9]{0,3}|\*)?"
_VARSPEC = rf"{_VARNAME}{_MODIFIER}"
# Operators of levels 2-4; "=,!@|" are reserved for future extensions and so invalid.
_EXPRESSION = rf"\{{[+#./;?&]?{_VARSPEC}(?:,{_VARSPEC})*\}}"
_TEMPLATE = re.compile(rf"(?:{_LITERAL}|{_EXPRESSION})*")
_VARSPEC_NAME = re.compile(rf"({_VARNAME}){_MODIFIER}")


def is_valid_template(template: str) -> bool:
    return _TEMPLATE.fullmatch(template) is not None


def variable_names(template: str) -> set[str]:
    """The variables of a valid template."""
    names: set[str] = set()
    for expression in re.findall(r"\{([^}]*)\}", template):
        for spec in expression.lstrip("+#./;?&").split(","):
            match = _VARSPEC_NAME.fullmatch(spec)
            if match is not None:
                names.add(match.group(1))
    return names
