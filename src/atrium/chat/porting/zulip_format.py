"""The layout of the organization export that Zulip's `manage.py export` writes.

Facts taken from Zulip's `zerver/lib/export.py` and `zerver/lib/import_realm.py` (the 7.x line,
and a 2024 tree between 8.x and 9.0 for what changed); the full list with the differences between
versions is in docs/zulip-export-format.md. In short:

- A `.tar.gz` holding one top folder (`zulip-export-<random>/`), written by `tar -czf` from the
  export's parent folder.
- `realm.json`: one JSON object, table name -> list of rows, each row Django's `model_to_dict`
  of the model: foreign keys under the field's name without `_id` (`realm`, `sender`,
  `recipient`, `user_profile`), many-to-many fields as lists of ids, rows sorted by id.
  DateTimeFields are floats (UNIX seconds): the `DATE_FIELDS` below.
- `messages-000001.json`, `-000002`...: `zerver_message` (chunks of 1000 by ascending id) and
  `zerver_usermessage`, whose `flags` bitfield is written as the integer `flags_mask`.
- `attachment.json`: `zerver_attachment` (with `messages`, the linking message ids).
- `uploads/`, `avatars/`, `emoji/`, `realm_icons/`: the files under their storage paths, each
  folder with a `records.json` list ({"path", "s3_path", "user_profile_id", "realm_id", ...};
  emoji records add "file_name", "name", "author", "deactivated").
- `analytics.json` and `stats.txt` (row counts), which an import does not need.
"""

from __future__ import annotations

# Zulip's UserMessage flag bits, in order (7.x names; 8.0 renamed bit 4 to
# stream_wildcard_mentioned and reused the retired bits 5 and 6 for topic_wildcard_mentioned and
# group_mentioned). Atrium's chat/flags.py keeps the same order, so a mask travels unchanged.
FLAG_BITS = 13
FLAG_MASK = (1 << FLAG_BITS) - 1

# Recipient types.
RECIPIENT_PERSONAL = 1
RECIPIENT_STREAM = 2
RECIPIENT_HUDDLE = 3

# The DateTimeFields that the export writes as floats.
DATE_FIELDS = {
    "zerver_attachment": ("create_time",),
    "zerver_message": ("last_edit_time", "date_sent"),
    "zerver_realm": ("date_created",),
    "zerver_stream": ("date_created",),
    "zerver_userprofile": ("date_joined", "last_login", "last_reminder"),
}

# Where an emoji image is stored, relative to the avatars root and the export's `emoji/`.
EMOJI_PATH = "{realm_id}/emoji/images/{file_name}"

# Messages per `messages-NNNNNN.json` file.
MESSAGE_CHUNK = 1000

# The tables of realm.json (and the message files) this importer reads. Anything else present in
# an export is listed in the import's report as not carried over.
READ_TABLES = frozenset(
    {
        "zerver_realm",
        "zerver_realmuserdefault",
        "zerver_userprofile",
        "zerver_userprofile_mirrordummy",
        "zerver_userprofile_crossrealm",
        "zerver_client",
        "zerver_recipient",
        "zerver_stream",
        "zerver_subscription",
        "zerver_huddle",
        "zerver_defaultstream",
        "zerver_realmemoji",
        "zerver_realmfilter",
        "zerver_realmplayground",
        "zerver_usergroup",
        "zerver_namedusergroup",
        "zerver_usergroupmembership",
        "zerver_groupgroupmembership",
        "zerver_reaction",
        "zerver_message",
        "zerver_usermessage",
        "zerver_attachment",
        "zerver_usertopic",
        "zerver_muteduser",
        "zerver_alertword",
        "zerver_userstatus",
        "zerver_customprofilefield",
        "zerver_customprofilefieldvalue",
    }
)

# Tables whose content has no place in Atrium or does not survive a move in Zulip either
# (sessions, activity statistics, audit history): named in the report, never an error.
IGNORED_TABLES = frozenset(
    {
        "zerver_useractivity",
        "zerver_useractivityinterval",
        "zerver_userpresence",
        "zerver_realmauditlog",
        "zerver_realmcount",
        "analytics_realmcount",
        "analytics_streamcount",
        "analytics_usercount",
    }
)
