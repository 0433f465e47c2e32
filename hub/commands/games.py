"""`pyramid games`: list the games kept in a hub's event log (newest last)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

#: where `pyramid hub` and `pyramid demo` keep their logs by default (relative to the checkout)
DEFAULT_DBS = ("var/hub.db", "var/demo.db")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        default=None,
        help=f"SQLite event log (default: {' and '.join(DEFAULT_DBS)}, "
        "the hub's and the demo's, whichever exist)",
    )
    parser.add_argument("--table", default=None, help="only this table")
    parser.add_argument("--json", action="store_true", help="JSON lines instead of a table")


def run(args: argparse.Namespace) -> int:
    dbs = [args.db] if args.db else [d for d in DEFAULT_DBS if Path(d).exists()]
    if not dbs:
        where = args.db or " or ".join(DEFAULT_DBS)
        print(
            f"pyramid games: no event log at {where} (run from the checkout where the hub "
            "or `make demo` ran, or give --db FILE)",
            file=sys.stderr,
        )
        return 2
    rows = []
    for db in dbs:
        found = _rows(db, args.table)
        if found is None:
            return 2
        rows += [{**r, "db": db} for r in found]
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return 0
    if not rows:
        print(f"no games yet in {', '.join(dbs)}")
        return 0
    print(
        f"{'table':<8} {'game':<6} {'kind':<10} {'started':<16} {'status':<9} "
        f"{'players':<28} winner"
    )
    for r in rows:
        started = time.strftime("%Y-%m-%d %H:%M", time.localtime(r["started"]))
        winners = ", ".join(r.get("winners") or []) or "-"
        print(
            f"{r['table']:<8} {r['game_id']:<6} {r.get('kind') or 'camelup':<10} "
            f"{started:<16} {r['status']:<9} {', '.join(r['players']):<28} {winners}"
        )
    return 0


def _rows(db: str, table: str | None) -> list[dict[str, Any]] | None:
    from hub.session import TableSession
    from hub.store import Store, StoreError

    if not Path(db).exists():
        print(f"pyramid games: no event log at {db}", file=sys.stderr)
        return None
    try:
        store = Store(db)
    except StoreError as exc:
        print(f"pyramid games: {exc}", file=sys.stderr)
        return None
    try:
        rows: list[dict[str, Any]] = []
        for t in [table] if table else store.tables():
            rows += TableSession(t, store, odds=False, advice=False).games()
        return rows
    finally:
        store.close()
