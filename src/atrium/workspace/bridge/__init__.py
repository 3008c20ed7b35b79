"""The bridge between the chat and the wiki: wiki links in messages, one top bar and one search,
wiki changes posted to chat, and each page's chat topic. Each piece is a function or object
handed to a service, which never imports the other."""
