"""Command-line adapters of the hub; each module is one `pyramid` subcommand."""
