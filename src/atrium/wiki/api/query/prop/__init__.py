"""The `prop=` modules: what is known about each page of the page set."""
