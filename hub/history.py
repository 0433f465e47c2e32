"""A table's games as its log tells them: replay, public envelopes, the games and a past game.

Why apart from :mod:`hub.session`: these only read the log. The session, the table's one
writer, replays with :func:`rebuild` at start-up (and after an undo the log did not take); the
dashboard, MQTT and the command line read the rest. Each game's rules come from its driver
(:func:`hub.games_glue.driver` of the record's ``kind``): nothing here knows a game.
"""

from __future__ import annotations

from typing import Any

from hub.bus import Envelope
from hub.errors import RequestError
from hub.games_glue import driver
from hub.games_glue.base import AnyGame
from hub.prompts import Prompt, track_prompt
from hub.store import GameRecord, Store, StoredEvent

__all__ = ["rebuild", "envelopes", "games", "past_game"]


def rebuild(
    rec: GameRecord, events: list[StoredEvent]
) -> tuple[AnyGame | None, dict[str, Prompt], list[list[int]]]:
    """The game ``events`` (one game's log, in seq order) leave: its engine game (None before
    any engine event), its open prompts, and the seqs of each engine batch still in force after
    the first (the undo stack; an ``undo`` hub event pops one, never the start)."""
    drv = driver(rec.kind)
    batches: list[list[StoredEvent]] = []  # engine batches still in force
    pending: dict[str, Prompt] = {}
    for e in events:
        if e.origin == "hub":
            if e.type == "undo" and len(batches) > 1:
                batches.pop()
        elif batches and batches[-1][0].batch == e.batch:
            batches[-1].append(e)
        else:
            batches.append([e])
    for e in events:
        for pid in (e.cause or {}).get("resolves") or []:
            pending.pop(pid, None)
        track_prompt(pending, e.event, e.seq, drv.prompt_of)
    flat = [e.event for b in batches for e in b]
    if not flat:
        return None, pending, []
    game = drv.replay(flat)
    return game, pending, [[e.seq for e in b] for b in batches[1:]]


def envelopes(store: Store, table_id: str, rows: list[StoredEvent]) -> list[Envelope]:
    """The public envelopes of logged ``rows`` (any games of the table): each event as its
    game's driver shows it to anyone, annotated from its batch's cause."""
    kinds = {r.game_id: r.kind for r in store.games(table_id)} if rows else {}
    out = []
    for i, r in enumerate(rows):
        drv = driver(kinds.get(r.game_id) if r.game_id is not None else None)
        end = i == len(rows) - 1 or rows[i + 1].batch != r.batch
        public = drv.annotate(drv.public_event(r.event), r.cause or {})
        out.append(Envelope(r.seq, r.table_id, r.game_id, public, r.ts, batch_end=end))
    return out


def games(store: Store, table_id: str) -> list[dict[str, Any]]:
    """The table's games, oldest first, with the winners and money of finished ones."""
    out = []
    for rec in store.games(table_id):
        d = rec.to_dict()
        if rec.status == "finished":
            over = [e for e in store.events(table_id, game_id=rec.game_id) if e.type == "game_over"]
            if over:
                d["winners"] = over[-1].event.get("winners")
                d["money"] = over[-1].event.get("money")
        out.append(d)
    return out


def past_game(store: Store, table_id: str, game_id: str) -> dict[str, Any]:
    """A past (or the current) game's public snapshot, rebuilt from the log; RequestError
    ("unknown_game") for a game the table never had."""
    rec = store.game(table_id, str(game_id))
    if rec is None:
        raise RequestError(f"there is no game {game_id!r} at this table", "unknown_game")
    events = store.events(table_id, game_id=rec.game_id)
    game, pending, _ = rebuild(rec, events)
    return {
        "table": table_id,
        "game_id": rec.game_id,
        "status": rec.status,
        "seq": events[-1].seq if events else 0,
        "game": None if game is None else driver(rec.kind).public_view(game.state),
        "pending": list(pending.values()),
        "log": [e.to_dict() for e in envelopes(store, table_id, events)],
        "record": rec.to_dict(),
    }
