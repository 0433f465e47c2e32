"""Shipped data of the Camel Up odds: race_table.npz (P(win), P(lose) per rank slot) and
race_pairs.npz (P(winner, loser) per pair of rank slots), both built by
scripts/build_race_table.py."""
