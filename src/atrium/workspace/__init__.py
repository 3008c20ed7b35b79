"""The workspace: what composes the chat and the wiki into one product. It may import both
services; they never import it, nor each other (see the import contracts)."""
