"""Command-line adapters for the vision package (file I/O lives here, not in the readers)."""
