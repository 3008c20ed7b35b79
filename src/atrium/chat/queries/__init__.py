"""The read side of the chat service: queries and the shapes they return."""
