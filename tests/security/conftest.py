"""The service harnesses the security tests drive: the chat's (`settings`, `chat`) and the
wiki's (`wiki`, `client`). A wiki test module names its service with a `service_under_test`
fixture of its own, as tests/wiki/conftest.py does."""

from tests.chat.conftest import chat, settings  # noqa: F401
from tests.wiki.conftest import client, wiki  # noqa: F401
