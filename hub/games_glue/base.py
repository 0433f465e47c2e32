"""The Driver contract: everything the hub asks of a game, and the table a driver acts on.

The hub (session, dispatcher, MQTT bridge, Home Assistant discovery, dashboard, odds worker)
never asks which game it runs: it asks the game's :class:`Driver`. A new game plugs in by writing
a driver (a module ``hub.games_glue.<kind>`` whose ``DRIVER`` is an instance of a subclass) and
naming its kind in :class:`hub.games_glue.GameKind`; nothing else in the hub changes.

What a driver answers (the hooks, each with the defaults this base class gives):

- starting: :meth:`check_settings`, :meth:`validate_setup`, :meth:`start` (a request's fields
  -> the stored ``params`` and a new engine ``Game``), :meth:`new` and :meth:`replay`;
- views: :meth:`public_view`, :meth:`player_view`, :meth:`full_view`, and of one logged event
  :meth:`public_event` (secrets out) and :meth:`annotate` (what the hub knew beside it);
- actions: :meth:`parse_action`, :meth:`check`, :meth:`players`, :meth:`acting_player`,
  :meth:`public_action`, and the table's moves :meth:`action`, :meth:`confirm`;
- the camera: :meth:`observe_die`, :meth:`observe_track`, :meth:`observe_dice` (judge a reading
  and play it, or ask a person);
- prompts: :meth:`prompt_of` (the prompt a hub event opens), :meth:`answered` (the prompts an
  engine batch answers), :meth:`undo_dismisses`;
- derived and published: :meth:`derived` (odds and advice, run in the odds worker),
  :meth:`tallies` (the stage-end tallies the bridge retains), :meth:`scores` and
  :meth:`sensors` (the retained scores and Home Assistant's sensors).

The drivers hold no state: what they change, they change through the :class:`Table` they are
given (the session), whose :meth:`Table.play` and :meth:`Table.log` end in the session's one write
path. They raise ``IllegalAction`` (of the engine, a ``ValueError``) or :class:`RequestError`
with a reason code; the session and the dispatcher turn those into refusals.
"""

from __future__ import annotations

import importlib
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, NoReturn, Protocol, TypeAlias, TypeVar

from hub.auth import Access
from hub.commit import Item
from hub.errors import RequestError
from hub.games.common import IllegalAction
from hub.prompts import Prompt, prompt_of

__all__ = [
    "AnyDriver",
    "AnyGame",
    "Driver",
    "EngineGame",
    "Table",
    "Sensor",
    "StoredEventLike",
    "TO_MOVE",
    "bad_settings",
]

#: What a hook is given of a request or observation: its validated JSON fields.
Payload = Mapping[str, Any]

#: A game's state (its engine's ``State``/``GameState``): only its own driver reads it.
S = TypeVar("S")
#: A game's action (its engine's ``Action`` union): only its own driver makes one.
A = TypeVar("A")
#: ``S`` where it is only given out (a Protocol's state)
S_co = TypeVar("S_co", covariant=True)


def bad_settings(message: str) -> IllegalAction:
    return IllegalAction("bad_settings", message)


class StoredEventLike(Protocol):
    """A logged event as :meth:`Driver.tallies` reads it (``hub.store.StoredEvent``)."""

    @property
    def seq(self) -> int: ...

    @property
    def event(self) -> dict[str, Any]: ...

    @property
    def type(self) -> str: ...


@dataclass(frozen=True)
class Sensor:
    """One Home Assistant sensor read from the table's retained ``state`` topic."""

    key: str
    name: str
    template: str
    extra: dict[str, Any] = field(default_factory=dict)


#: the player to move, for the games that have one
TO_MOVE = Sensor(
    "to_move",
    "Player to move",
    "{{ (value_json.game.current_player if value_json.game else none) or 'nobody' }}",
    {"icon": "mdi:account-arrow-right"},
)


class EngineGame(Protocol[S_co, A]):
    """What the hub uses of an engine's ``Game`` (the shell in ``hub.games.common``; the shared
    contract of docs/games.md), over the engine's state ``S`` and action ``A``: only its driver
    reads the one and makes the other."""

    @property
    def state(self) -> S_co: ...

    @property
    def log(self) -> list[dict[str, Any]]: ...

    @property
    def finished(self) -> bool: ...

    @property
    def current_player(self) -> str | None: ...

    def legal_actions(self) -> Sequence[A]: ...

    def check(self, action: A, player: str | None = None) -> list[dict[str, Any]]: ...

    def play(self, action: A, player: str | None = None) -> list[dict[str, Any]]: ...

    def undo(self) -> list[dict[str, Any]]: ...


class Table(Protocol):
    """What a driver may see and do of the table (implemented by ``hub.session.TableSession``).

    Every change goes through :meth:`play` (an engine action, checked, with its events) or
    :meth:`log` (hub events such as a prompt), both the session's one write path: the log first,
    then memory, then the bus.
    """

    threshold: float

    @property
    def seq(self) -> int: ...

    @property
    def pending(self) -> dict[str, Prompt]: ...

    @property
    def params(self) -> Mapping[str, Any]: ...

    @property
    def active(self) -> bool: ...

    def play(
        self,
        action: Any,
        player: str | None,
        events: list[dict[str, Any]],
        cause: dict[str, Any],
        before: Iterable[Item] = (),
    ) -> dict[str, Any]: ...

    def refuse(self, player: str | None, action: str, exc: IllegalAction) -> NoReturn: ...

    def log(self, events: list[dict[str, Any]], cause: dict[str, Any]) -> list[int]: ...

    def keep_crop(self, p: Payload) -> str | None: ...

    def next_prompt(self) -> str: ...


def play_confirmed_die(
    table: Table,
    game: EngineGame[S, A],
    prompt: Prompt,
    act: A,
    colour: str,
    face: int,
    access: Access,
) -> dict[str, Any]:
    """Play the die a person confirmed for a die-reading prompt (either Camel Up edition).

    The hub logs a ``correction`` first (what was read, what was said, by whom), then the
    release, which resolves the prompt; a release the rules refuse is a clear refusal and
    changes nothing.
    """
    reading = prompt.get("reading", {})
    player = game.current_player
    try:
        events = game.check(act, player)
    except IllegalAction as exc:
        raise RequestError(str(exc), exc.reason) from None
    correction = {
        "type": "correction",
        "prompt": prompt["id"],
        "colour": colour,
        "face": face,
        "read": {"colour": reading.get("colour"), "face": reading.get("face")},
        "changed": colour != reading.get("colour") or face != reading.get("face"),
        "by": access.player or "table",
    }
    return table.play(
        act,
        player,
        events,
        {
            "cmd": "confirm",
            "action": str(act),
            "player": player,
            "resolves": [prompt["id"]],
            "crop": prompt.get("crop"),
            "confidence": reading.get("confidence"),
        },
        before=[("hub", correction)],
    )


class Driver(Generic[S, A]):
    """What the hub needs of one game, over its engine's state ``S`` and action ``A``.
    Subclasses (``Driver[GameState, Action]``) fill in the engine's names and its edges."""

    kind: str = ""
    title: str = ""
    #: the engine's package, e.g. "hub.games.horserace"
    package: str = ""
    #: start_game fields beyond players / seed / first_player / abandon that this game takes
    settings: frozenset[str] = frozenset()
    #: whether a player's own link sees more than the shared screen
    has_secrets: bool = False
    #: everyone acts at once (no turn order): an action names its player, or is the table's
    everyone_acts: bool = False
    #: the seat that starts when a start request names none (None: the engine decides)
    default_first_player: int | None = None
    #: the dashboard's script for this game (:meth:`dashboard_script`)
    script: str | None = None

    # -- starting and rebuilding ------------------------------------------------------------
    def check_settings(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The settings as they will be stored (JSON-safe), or IllegalAction("bad_settings")."""
        unknown = sorted(set(given) - self.settings)
        if unknown:
            known = ", ".join(sorted(self.settings)) or "none"
            raise bad_settings(
                f"{unknown[0]!r} is not a setting of {self.title} (its settings: {known})"
            )
        return dict(given)

    def validate_setup(self, setup: Any) -> None:
        """Check a start request's ``setup`` field (None and "random" always pass): the shape
        only; :meth:`start` decides. Raises ValueError with the sentence for the asker."""
        if setup is not None and setup != "random":
            raise ValueError(f"'setup' is Camel Up's starting roll; {self.title} has none")

    def start(
        self, p: Payload, camera_setup: Callable[[int | None], dict[str, Any]]
    ) -> tuple[EngineGame[S, A], dict[str, Any]]:
        """(a new engine ``Game``, the ``params`` to store) from a checked start request.

        ``camera_setup(setup_id)`` is the setup the camera read (RequestError when there is none
        usable), for games whose start the camera reads."""
        if p.get("setup") not in (None, "random") or p.get("setup_id") is not None:
            raise RequestError(
                f"'setup' is Camel Up's starting roll; {self.title} has none", "bad_payload"
            )
        settings = self.check_settings(p.get("settings") or {})
        seed = p.get("seed")
        if seed is None:  # the engine's own rolls must be the same when checked and played
            seed = secrets.randbelow(2**31)
        params: dict[str, Any] = {
            "players": list(p["players"]),
            "seed": seed,
            "first_player": p.get("first_player"),
            "settings": settings,
        }
        return self.new(params), params

    def new(self, params: Mapping[str, Any]) -> EngineGame[S, A]:  # pragma: no cover - abstract
        raise NotImplementedError

    def engine(self) -> Any:
        """The game's package (imported on first use: a hub that never plays it never loads it).

        Every engine package exports ``Game``, ``public_view``, ``player_view`` and
        ``parse_action`` (the shared contract of docs/games.md)."""
        return importlib.import_module(self.package)

    def replay(self, events: Sequence[dict[str, Any]]) -> EngineGame[S, A]:
        game: EngineGame[S, A] = self.engine().Game.replay(list(events))
        return game

    # -- views ------------------------------------------------------------------------------
    def public_view(self, state: S) -> dict[str, Any]:
        return self.engine().public_view(state)  # type: ignore[no-any-return]

    def player_view(self, state: S, name: str) -> dict[str, Any]:
        return self.engine().player_view(state, name)  # type: ignore[no-any-return]

    def full_view(self, state: S) -> dict[str, Any]:
        return self.public_view(state)

    def public_event(self, event: dict[str, Any]) -> dict[str, Any]:
        """An event as everyone may see it (the base: the events have no secrets)."""
        return dict(event)

    def annotate(self, event: dict[str, Any], cause: Mapping[str, Any]) -> dict[str, Any]:
        """A public event with what the hub knew beside it (the base: nothing)."""
        return event

    # -- actions ----------------------------------------------------------------------------
    def parse_action(self, text: str) -> A:
        action: A = self.engine().parse_action(text)
        return action

    def check(self, game: EngineGame[S, A], action: A, player: str | None) -> list[dict[str, Any]]:
        return list(game.check(action, player))

    def players(self, game: EngineGame[S, A]) -> list[str]:  # pragma: no cover - abstract
        """The game's players' names, in seating order."""
        raise NotImplementedError

    def acting_player(self, action_text: str) -> str | None:
        """The player an action names (Marco Polo's ``dice:Ann:...``); None when it names none."""
        return None

    def default_actor(self, game: EngineGame[S, A]) -> str | None:
        """Who acts when an action arrives with no player (the base: nobody)."""
        return None

    def public_action(self, action: str) -> str:
        """An action's text as everyone may see it (the base: as it is)."""
        return str(action)

    def action(
        self, table: Table, game: EngineGame[S, A], player: str | None, text: str, access: Access
    ) -> dict[str, Any]:
        """Play an authorised action in the engine's notation, or refuse it (logged).

        Open prompts the action answers are closed with it (:meth:`answered`)."""
        if player is None:
            player = self.default_actor(game)
        try:
            act = self.parse_action(text)
            events = self.check(game, act, player)
        except IllegalAction as exc:
            table.refuse(player, text, exc)
        return table.play(
            act,
            player,
            events,
            {
                "cmd": "action",
                "action": str(act),
                "player": player,
                "resolves": self.answered(game, table.pending, events),
            },
        )

    def confirm(
        self, table: Table, game: EngineGame[S, A], prompt: Prompt, p: Payload, access: Access
    ) -> dict[str, Any]:
        """A person answers one of this game's prompts (dismissing is the session's)."""
        raise RequestError(f"a {prompt['kind']} prompt can only be dismissed", "bad_payload")

    # -- the camera -------------------------------------------------------------------------
    def observe_die(self, table: Table, game: EngineGame[S, A], p: Payload) -> dict[str, Any]:
        raise RequestError(f"{self.title} reads no single die", "wrong_game")

    def observe_track(self, table: Table, game: EngineGame[S, A], p: Payload) -> dict[str, Any]:
        raise RequestError(f"{self.title} has no track for the camera to read", "wrong_game")

    def observe_dice(self, table: Table, game: EngineGame[S, A], p: Payload) -> dict[str, Any]:
        raise RequestError(
            "observe_dice is Marco Polo II's round-start frame; this game reads "
            "one die at a time (observe_die)",
            "wrong_game",
        )

    # -- prompts ----------------------------------------------------------------------------
    def prompt_of(self, event: Mapping[str, Any], seq: int) -> Prompt | None:
        """The prompt a logged hub event opens (see :mod:`hub.prompts`), or None."""
        return prompt_of(event, seq)

    def answered(
        self, game: EngineGame[S, A], pending: Mapping[str, Prompt], events: list[dict[str, Any]]
    ) -> list[str]:
        """The open prompts these engine events answer: an unsure roll by any roll; a frame's
        dice check by the next round, the game's end, or the dice of every unread player."""
        types = {e.get("type") for e in events}
        state = game.state if game is not None else None
        read = set(getattr(state, "dice", {}) or {}) | {
            e.get("player") for e in events if e.get("type") == "dice_read"
        }
        out = []
        for pid, prompt in pending.items():
            if prompt["kind"] == "roll_reading" and "die_rolled" in types:
                out.append(pid)
            elif prompt["kind"] == "dice_check" and (
                "round_started" in types
                or "game_over" in types
                or ("dice_read" in types and set(prompt.get("players", [])) <= read)
            ):
                out.append(pid)
        return out

    def undo_dismisses(self, prompt: Prompt) -> bool:
        """Whether an undo closes this open prompt instead of undoing an action (the base: no)."""
        return False

    # -- derived and published --------------------------------------------------------------
    def derived(self, state: S, player: str | None, odds: bool, advice: bool) -> dict[str, Any]:
        """{"odds": ..., "advice": ...} of a position (pure: runs in the odds worker)."""
        return {"odds": None, "advice": []}

    def own_advice(self, state: S, player: str) -> list[dict[str, Any]] | None:
        """The advice for ``player``'s own link on their turn, from what that player alone
        knows (their cards, the colours of their own bets), or None when the shared advice of
        :meth:`derived` is all there is (the base). Never shown on another screen."""
        return None

    def tallies(self, events: Iterable[StoredEventLike], live: set[int]) -> list[dict[str, Any]]:
        """The stage-end tallies of a game (``live``: the seqs not undone), each with its
        ``leg``; the MQTT bridge retains each on ``leg/<n>/tally``. The base: none."""
        return []

    def sensors(self) -> list[Sensor]:
        """The game's Home Assistant sensors beside the table's own (status, game, seq)."""
        return []

    def dashboard_script(self) -> str | None:
        """The dashboard's script (a file in hub/dashboard/static) that draws this game's card
        and asks for its actions; the page loads every game's. None: the page's own card
        (dashboard.js draws Camel Up's)."""
        return self.script

    def scores(self, view: Mapping[str, Any]) -> dict[str, Any]:
        """Each player's money in a public view, as the bridge retains it on ``score/<player>``:
        the holdings' money while playing, else the result's once the game is scored."""
        scores = {n: h.get("money") for n, h in (view.get("holdings") or {}).items()}
        if not scores and view.get("result"):
            scores = dict(view["result"].get("money") or {})
        return scores


#: A game's driver as the game-agnostic hub holds it (the session, the dispatcher, the bridge):
#: the hub hands a game's state and actions back to that same driver and never looks inside, a
#: type Python's typing can only spell with ``Any`` (an existential). Each driver itself is
#: ``Driver[ItsState, ItsAction]`` and checked as such.
AnyDriver: TypeAlias = Driver[Any, Any]
#: A game as the game-agnostic hub holds it (see :data:`AnyDriver`).
AnyGame: TypeAlias = EngineGame[Any, Any]
