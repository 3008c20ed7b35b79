"""The interface message store: MediaWiki's English messages the wiki and its API use, by key.

A page `MediaWiki:<Key>` overrides a message (MediaWiki's "customised" messages).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

# MediaWiki 1.39 core's English messages (tools/extract_core_messages.py); the texts below are
# the wiki's own and win where both name a key.
CORE_MESSAGES: dict[str, str] = json.loads(
    (Path(__file__).parent / "data" / "core_messages_en.json").read_text(encoding="utf-8")
)

MESSAGES: dict[str, str] = {
    "mainpage": "Main Page",
    "mainpage-description": "Main page",
    "sitetitle": "{{SITENAME}}",
    "sitesubtitle": "",
    "tagline": "From {{SITENAME}}",
    "aboutsite": "About {{SITENAME}}",
    "edit": "Edit",
    "history": "History",
    "search": "Search",
    "login": "Log in",
    "logout": "Log out",
    "createaccount": "Create account",
    "categories": "Categories",
    "redirectpagesub": "Redirect page",
    "nstab-main": "Page",
    "talk": "Discussion",
    "summary": "Summary:",
    "minoredit": "This is a minor edit",
    "watchthis": "Watch this page",
    "savearticle": "Save page",
    "newarticle": "(New)",
    "noarticletext": "There is currently no text in this page.",
    "editconflict": "Edit conflict: $1",
    "wrongpassword": "Incorrect username or password entered.\nPlease try again.",
    "userexists": "Username entered already in use.\nPlease choose a different name.",
    "badretype": "The passwords you entered do not match.",
    "noname": "You have not specified a valid username.",
    "nosuchuser": 'There is no user by the name "$1".\nUsernames are case sensitive.\nCheck your spelling, or [[Special:CreateAccount|create a new account]].',
    "api-usage-docref": "See $1 for API usage.",
    "api-usage-mailinglist-ref": "Subscribe to the mediawiki-api-announce mailing list at <https://lists.wikimedia.org/postorius/lists/mediawiki-api-announce.lists.wikimedia.org/> for notice of API deprecations and breaking changes.",
    "apierror-assertbotfailed": 'You do not have the "bot" right, so the action could not be completed.',
    "apierror-assertnameduserfailed": 'You are no longer logged in as "$1", so the action could not be completed.',
    "apierror-assertuserfailed": "You are no longer logged in, so the action could not be completed.",
    "apierror-assertanonfailed": "You are no longer logged out, so the action could not be completed.",
    "apierror-badcontinue": "Invalid continue param. You should pass the original value returned by the previous query.",
    "apierror-badtoken": "Invalid CSRF token.",
    "apierror-invalidmethod": "Invalid HTTP method. Consider using GET or POST.",
    "apierror-invalidparammix": "The parameters $1 can not be used together.",
    "apierror-maxlag": "Waiting for $2: $1 {{PLURAL:$1|second|seconds}} lagged.",
    "apierror-missingparam-at-least-one-of": "At least one of the parameters $1 is required.",
    "apierror-missingparam-one-of": "One of the parameters $1 is required.",
    "apierror-multisource": 'The "$1" parameter cannot be used with "$2".',
    "apierror-mustbeposted": 'The "$1" module requires a POST request.',
    "apierror-mustpostparams": "The following {{PLURAL:$2|parameter was|parameters were}} found in the query string, but must be in the POST body: $1.",
    "apierror-readapidenied": "You need read permission to use this module.",
    "apierror-unrecognizedparams": "Unrecognized {{PLURAL:$2|parameter|parameters}}: $1.",
    "apierror-writeapidenied": "You're not allowed to edit this wiki through the API.",
    "apierror-missingtitle": "The page you specified doesn't exist.",
    "apierror-articleexists": "The article you tried to create has been created already.",
    "apierror-nosuchsection": "There is no section $1.",
    "apierror-invalidtitle": 'Bad title "$1".',
    "apierror-nosuchpageid": "There is no page with ID $1.",
    "api-login-fail-aborted": "Authentication requires user interaction, which is not supported by <kbd>action=login</kbd>. To be able to login with <kbd>action=login</kbd>, see [[Special:BotPasswords]]. To continue using main-account login, see <kbd>[[Special:ApiHelp/clientlogin|action=clientlogin]]</kbd>.",
    "apiwarn-deprecation-login-botpw": 'Main-account login via "action=login" is deprecated and may stop working without warning. To continue login with "action=login", see [[Special:BotPasswords]]. To safely continue using main-account login, see "action=clientlogin".',
    "paramvalidator-badinteger": 'Invalid value "$2" for integer parameter "$1".',
    "paramvalidator-badtimestamp": 'Invalid value "$2" for timestamp parameter "$1".',
    "paramvalidator-baduser": 'Invalid value "$2" for user parameter "$1".',
    "paramvalidator-badvalue-enumnotmulti": 'Unrecognized value for parameter "$1": $2.',
    "paramvalidator-deprecated-value": 'The value "$2" to parameter "$1" has been deprecated.',
    "paramvalidator-missingparam": 'The "$1" parameter must be set.',
    "paramvalidator-outofrange-minmax": 'The value "$2" for parameter "$1" must be between $3 and $4.',
    "paramvalidator-param-deprecated": 'The parameter "$1" has been deprecated.',
    "paramvalidator-toomanyvalues": 'Too many values supplied for parameter "$1". The limit is $2.',
    "paramvalidator-unrecognizedvalues": 'Unrecognized {{PLURAL:$4|value|values}} for parameter "$1": $3',
    "title-invalid-empty": "The requested page title is empty or contains only the name of a namespace.",
    "title-invalid-characters": 'The requested page title contains invalid characters: "$1".',
    "title-invalid-relative": "Title has relative path. Relative page titles (./, ../) are invalid, because they will often be unreachable when handled by user's browser.",
    "title-invalid-magic-tilde": "The requested page title contains invalid magic tilde sequence (<nowiki>~~~</nowiki>).",
    "title-invalid-too-long": "The requested page title is too long. It must be no longer than $1 {{PLURAL:$1|byte|bytes}} in UTF-8 encoding.",
    "title-invalid-leading-colon": "The requested page title contains an invalid colon at the beginning.",
}  # fmt: skip
MESSAGES = {**CORE_MESSAGES, **MESSAGES}

_PLURAL = re.compile(r"\{\{PLURAL:([^|}]*)\|([^|}]*)(?:\|([^}]*))?\}\}")


def format_message(text: str, args: Sequence[str], sitename: str, parse: bool) -> str:
    """Substitute `$1`… and, when `parse`, the few magic words messages use."""
    for index, value in enumerate(args, 1):
        text = text.replace(f"${index}", value)
    if parse:
        text = text.replace("{{SITENAME}}", sitename)

        def plural(match: re.Match[str]) -> str:
            number = match.group(1).strip()
            one, many = (
                match.group(2),
                match.group(3) if match.group(3) is not None else match.group(2),
            )
            return one if number == "1" else many

        text = _PLURAL.sub(plural, text)
    return text
