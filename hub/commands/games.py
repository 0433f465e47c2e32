"""`pyramid games`: list the games kept in a hub's event log (newest last)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default="var/hub.db", help="SQLite event log (default var/hub.db)")
    parser.add_argument("--table", default=None, help="only this table")
    parser.add_argument("--json", action="store_true", help="JSON lines instead of a table")


def run(args: argparse.Namespace) -> int:
    from hub.session import TableSession
    from hub.store import Store, StoreError

    if not Path(args.db).exists():
        print(f"pyramid games: no event log at {args.db}", file=sys.stderr)
        return 2
    try:
        store = Store(args.db)
    except StoreError as exc:
        print(f"pyramid games: {exc}", file=sys.stderr)
        return 2
    tables = [args.table] if args.table else store.tables()
    rows = []
    for table in tables:
        rows += TableSession(table, store, odds=False, advice=False).games()
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return 0
    if not rows:
        print("no games yet")
        return 0
    print(f"{'table':<8} {'game':<6} {'started':<16} {'status':<9} {'players':<28} winner")
    for r in rows:
        started = time.strftime("%Y-%m-%d %H:%M", time.localtime(r["started"]))
        winners = ", ".join(r.get("winners") or []) or "-"
        print(f"{r['table']:<8} {r['game_id']:<6} {started:<16} {r['status']:<9} "
              f"{', '.join(r['players']):<28} {winners}")
    return 0
