"""Shipped data of the Camel Up odds: race_table.npz (built by scripts/build_race_table.py)."""
