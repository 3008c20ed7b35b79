"""The workspace: one product made of the chat and the wiki.

It sits above both services (they never import it) and joins them at composition time: one
identity per person, owning a chat user and a wiki user, with one password and one browser
session. The services receive what they need from it by injection (`core.accounts`).
"""
