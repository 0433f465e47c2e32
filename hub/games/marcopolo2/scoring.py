"""The Marco Polo II final scoring calculator.

Per player, the entries the rule page lists (docs/rules/marco-polo-2.md, seed 003):
- improved guild seals, as the player's objective card says: entered as points (``seal_points``);
- different banners in cities with the player's trading posts: ``banner_points`` by hand, or a
  count ``banners`` with the marker's table given as the ``banner_table`` setting (the seed does
  not print that table, so there is no default: the calculator refuses a bare count);
- 1 point per 2 goods (pepper, silk, gold, jade; camels are not goods);
- 1 point per 10 coins;
- contract majority: most fulfilled 8, second most 4;
- points scored during the game: trading posts 9 and 10 give 5 each and the 11th gives 10
  (computed from ``trading_posts``, the number placed), contract rewards (``contract_points``)
  and anything else on the score track (``other_points``).
Highest total wins; a tie goes to the most camels; still tied, the victory is shared.

Settled here where the page is open:
- Jade may stand in for a coin or a camel (the page: "a scorer that asks for coins and camels must
  let the player count jade where they choose"): ``jade_as_coins`` and ``jade_as_camels`` move
  jade out of the goods into coins or camels. ``best_jade_split`` suggests the split worth most.
- "Second most" is the second-highest number of contracts (dense ranking): with 5, 5 and 3
  contracts both 5s score 8 and the 3 scores 4 — the page speaks of the number, not a place.
- A player needs at least one fulfilled contract to score majority points.
- With two players the second-most contracts score nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

from hub.games.common import IllegalAction

FIRST_MAJORITY, SECOND_MAJORITY = 8, 4
TRADING_POST_BONUS = {9: 5, 10: 5, 11: 10}  # the n-th post placed scores this at once


@dataclass(frozen=True)
class ScoreSheet:
    seal_points: int = 0
    banner_points: int | None = None
    banners: int | None = None
    pepper: int = 0
    silk: int = 0
    gold: int = 0
    jade: int = 0
    coins: int = 0
    camels: int = 0
    contracts: int = 0  # contracts fulfilled
    contract_points: int = 0  # points their rewards gave during the game
    trading_posts: int = 0  # trading posts placed
    other_points: int = 0
    jade_as_coins: int = 0
    jade_as_camels: int = 0

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | ScoreSheet, who: str = "") -> ScoreSheet:
        if isinstance(data, ScoreSheet):
            return data.validate(who)
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise IllegalAction(
                "bad_sheet",
                f"{who or 'The sheet'}: unknown entr"
                f"{'y' if len(unknown) == 1 else 'ies'} {', '.join(unknown)}; "
                f"the entries are {', '.join(sorted(names))}.",
            )
        return cls(**dict(data)).validate(who)

    def validate(self, who: str = "") -> ScoreSheet:
        label = who or "The sheet"
        for f in fields(self):
            v = getattr(self, f.name)
            if v is None and f.name in ("banner_points", "banners"):
                continue
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise IllegalAction(
                    "bad_sheet", f"{label}: {f.name} must be a whole number >= 0, not {v!r}."
                )
        if self.jade_as_coins + self.jade_as_camels > self.jade:
            raise IllegalAction(
                "bad_sheet",
                f"{label}: {self.jade_as_coins} + "
                f"{self.jade_as_camels} jade counted as coins/camels, but "
                f"only {self.jade} jade.",
            )
        if self.trading_posts > max(TRADING_POST_BONUS):
            raise IllegalAction(
                "bad_sheet", f"{label}: at most {max(TRADING_POST_BONUS)} trading posts."
            )
        return self

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def trading_post_points(posts: int) -> int:
    return sum(v for n, v in TRADING_POST_BONUS.items() if posts >= n)


def _banner_points(sheet: ScoreSheet, table: Sequence[int] | None, who: str) -> int:
    if sheet.banner_points is not None:
        return sheet.banner_points
    if sheet.banners is None:
        return 0
    if table is None:
        raise IllegalAction(
            "no_banner_table",
            f"{who}: {sheet.banners} banners given as a count "
            "but no banner table is set; enter banner_points instead.",
        )
    if sheet.banners >= len(table):
        raise IllegalAction(
            "bad_sheet", f"{who}: the banner table has no entry for {sheet.banners} banners."
        )
    return int(table[sheet.banners])


def best_jade_split(sheet: ScoreSheet) -> dict[str, int]:
    """How many jade to count as coins to score most goods + coin points (the rest stay goods;
    fewest moved on a tie, since jade as goods costs nothing)."""
    goods = sheet.pepper + sheet.silk + sheet.gold + sheet.jade
    best = max(
        range(sheet.jade + 1), key=lambda a: ((goods - a) // 2 + (sheet.coins + a) // 10, -a)
    )
    return {"jade_as_coins": best, "points": (goods - best) // 2 + (sheet.coins + best) // 10}


def contract_majority(contracts: Mapping[str, int]) -> dict[str, int]:
    """Majority points for contracts fulfilled: 8 for the most, 4 for the second-highest number
    (not with two players); ties share the place's points; zero contracts score nothing."""
    levels = sorted({c for c in contracts.values() if c > 0}, reverse=True)
    award = {levels[0]: FIRST_MAJORITY} if levels else {}
    if len(levels) > 1 and len(contracts) > 2:
        award[levels[1]] = SECOND_MAJORITY
    return {p: award.get(c, 0) for p, c in contracts.items()}


def final_scoring(
    sheets: Mapping[str, Mapping[str, Any] | ScoreSheet], banner_table: Sequence[int] | None = None
) -> dict[str, Any]:
    """Score every player; the result is shaped like a Camel Up ``game_over`` event
    (``type``, ``points`` and the same map as ``money``, ``winners``, ``winner``) plus the
    per-player breakdown the dashboard shows."""
    if not 2 <= len(sheets) <= 4:
        raise IllegalAction("bad_players", "Final scoring needs the sheets of 2 to 4 players.")
    parsed = {p: ScoreSheet.from_json(s, p) for p, s in sheets.items()}
    majority = contract_majority({p: s.contracts for p, s in parsed.items()})
    breakdown: dict[str, dict[str, int]] = {}
    camels: dict[str, int] = {}
    for p, s in parsed.items():
        goods = s.pepper + s.silk + s.gold + s.jade - s.jade_as_coins - s.jade_as_camels
        coins = s.coins + s.jade_as_coins
        camels[p] = s.camels + s.jade_as_camels
        entries = {
            "seals": s.seal_points,
            "banners": _banner_points(s, banner_table, p),
            "goods": goods // 2,
            "coins": coins // 10,
            "contract_majority": majority[p],
            "trading_posts": trading_post_points(s.trading_posts),
            "contract_points": s.contract_points,
            "other": s.other_points,
        }
        breakdown[p] = {**entries, "total": sum(entries.values())}
    points = {p: b["total"] for p, b in breakdown.items()}
    best = max(points.values())
    leaders = [p for p in points if points[p] == best]
    most_camels = max(camels[p] for p in leaders)
    winners = [p for p in leaders if camels[p] == most_camels]
    return {
        "type": "game_over",
        "game": "marcopolo2",
        "points": points,
        "money": dict(points),
        "winners": winners,
        "winner": winners[0] if len(winners) == 1 else None,
        "tie_break": (
            "camels"
            if len(leaders) > 1 and len(winners) < len(leaders)
            else "shared"
            if len(winners) > 1
            else None
        ),
        "camels": camels,
        "breakdown": breakdown,
        "sheets": {p: s.to_json() for p, s in parsed.items()},
    }
