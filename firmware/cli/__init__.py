"""Command-line adapters of the firmware."""
