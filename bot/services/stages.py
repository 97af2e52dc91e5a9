"""Stages (RULES.md D13-D17): the chief judge adds the next stage (a preset or typed
values), changes a stage until its first game is saved, and closes the current one.

A tournament without stages is one stage over its distance; adding the first later
stage also stores that first one (the qualifying, all players, running), so every
game saved before stays in it (games.stage NULL is the first stage).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from decimal import Decimal, InvalidOperation

from bot.db import players as players_db
from bot.db import stages as stages_db
from bot.db.audit import record
from bot.db.connection import Conn, Database
from bot.db.games import game_code
from bot.db.stages import StageRow, StageSpec
from bot.db.tournaments import TournamentRow
from bot.publishing import Publisher
from bot.services import N_, Refusal
from bot.services.notices import FollowUp

FIRST_NAME = "qualifying"  # the implicit first stage, once stored (translated when shown)
NAME_MAX = 32


# The presets' buttons. A final is one table (10 entrants, D13); compensation is off in
# a final of fewer than 4 games (D14: usual) and its standings are hidden (D17: usual).
PRESETS: Mapping[str, StageSpec] = {
    "semi20": StageSpec("semifinal", 2, 20),
    "final2": StageSpec("final", 2, 10, compensation=False, hidden=True),
    "final4": StageSpec("final", 4, 10, hidden=True),
}
SETTINGS = ("name", "games", "entrants", "carry", "weight", "compensation", "hidden")
_ON = frozenset({"on", "yes", "1", "да", "вкл"})
_OFF = frozenset({"off", "no", "0", "нет", "выкл"})


def _factor(text: str, setting: str) -> str | Refusal:
    """An exact decimal string (D3), not negative (D15): 0.5 or 0,5."""
    try:
        value = Decimal(text.replace(",", "."))
    except InvalidOperation:
        value = Decimal("NaN")
    if not value.is_finite() or len(text) > 16:
        return Refusal(
            N_("{setting} must be a number such as 0.5 or 1, not {value}."),
            {"setting": setting, "value": html.escape(text, quote=False)},
        )
    if value < 0:
        return Refusal(
            N_("{setting} may not be negative (D15): {value}."),
            {"setting": setting, "value": html.escape(text, quote=False)},
        )
    return str(value.normalize()) if value else "0"


def _whole(text: str, setting: str) -> int | Refusal:
    if not text.isdigit() or not 1 <= int(text) <= 1000:
        return Refusal(
            N_("{setting} must be a whole number, at least 1, not {value}."),
            {"setting": setting, "value": html.escape(text, quote=False)},
        )
    return int(text)


def _switch(text: str, setting: str) -> bool | Refusal:
    word = text.lower()
    if word in _ON or word in _OFF:
        return word in _ON
    return Refusal(
        N_("{setting} is on or off, not {value}."),
        {"setting": setting, "value": html.escape(text, quote=False)},
    )


def apply_settings(spec: StageSpec, settings: Mapping[str, str]) -> StageSpec | Refusal:
    """``spec`` with the typed settings (``carry=0.5``, ``hidden=on`` ...) applied."""
    changes: dict[str, object] = {}
    for key, text in settings.items():
        found: object
        if key == "name":
            found = (
                text
                if 1 <= len(text) <= NAME_MAX
                else Refusal(N_("A stage's name is 1 to 32 characters."))
            )
            changes["name"] = found
        elif key in ("games", "entrants"):
            changes["games_per_player" if key == "games" else key] = found = _whole(text, key)
        elif key in ("carry", "weight"):
            changes[key] = found = _factor(text, key)
        elif key in ("compensation", "hidden"):
            changes[key] = found = _switch(text, key)
        else:
            return Refusal(
                N_("Unknown setting {setting}; the settings are: {settings}."),
                {"setting": html.escape(key, quote=False), "settings": ", ".join(SETTINGS)},
            )
        if isinstance(found, Refusal):
            return found
    return replace(spec, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Changed:
    stage: StageRow
    follow_up: FollowUp  # the group's standings name the stages


async def _players_before(conn: Conn, tournament: TournamentRow, rows: Sequence[StageRow]) -> int:
    """How many play the stage before the next one: its entrants, or all confirmed
    players for the first stage (D13)."""
    last = rows[-1] if rows else None
    if last is not None and last.entrants is not None:
        return last.entrants
    return await players_db.count_players(conn, tournament.id, status="confirmed")


def _check(spec: StageSpec, first: bool, before: int, names: Sequence[str]) -> Refusal | None:
    if first and spec.entrants is not None:
        return Refusal(
            N_("The first stage's entrants are all players (D13): it takes no entrants.")
        )
    if not first and spec.entrants is None:
        return Refusal(N_("A later stage needs its entrants: entrants=N (D13)."))
    if spec.entrants is not None and spec.entrants > before:
        return Refusal(
            N_("{entrants} entrants, but the stage before has only {players} players (D13)."),
            {"entrants": spec.entrants, "players": before},
        )
    if spec.name in names:
        return Refusal(
            N_("The tournament has a stage named {name} already."),
            {"name": html.escape(spec.name, quote=False)},
        )
    return None


async def add_stage(
    db: Database,
    publisher: Publisher,
    tournament: TournamentRow,
    spec: StageSpec,
    actor_id: int,
) -> Changed | Refusal:
    """Append the stage ``spec`` after the last one (storing the first stage too when
    the tournament had none)."""
    if tournament.status == "finished":
        return Refusal(N_("The tournament is finished; its stages can't change."))
    async with db.transaction() as conn:
        rows = await stages_db.list_stages(conn, tournament.id)
        current = stages_db.current_stage(rows)
        unsettled = await stages_db.unsettled_games(
            conn, tournament.id, 1 if current is None else current.number
        )
        if unsettled:
            return Refusal(
                N_(
                    "Games of the current stage wait for the chief judge's approval of "
                    "judge's points above 0.5 (D7): {games}. Approve or lower them first."
                ),
                {"games": ", ".join(game_code(r, t) for r, t in unsettled)},
            )
        before = await _players_before(conn, tournament, rows)
        refused = _check(spec, False, before, [row.name for row in rows] or [FIRST_NAME])
        if refused is not None:
            return refused
        if not rows:
            spec_1 = StageSpec(FIRST_NAME, tournament.distance, None)
            first = await stages_db.add_stage(conn, tournament.id, spec_1, status="running")
            await record(conn, "stage.add", first.id, tournament.id, actor_id, after=asdict(first))
        row = await stages_db.add_stage(conn, tournament.id, spec)
        await record(conn, "stage.add", row.id, tournament.id, actor_id, after=asdict(row))
        await publisher.enqueue(conn, tournament.id, standings=True)
    return Changed(row, FollowUp(publisher=publisher, tournament_id=tournament.id))


async def change_stage(
    db: Database,
    publisher: Publisher,
    tournament: TournamentRow,
    number: int,
    settings: Mapping[str, str],
    actor_id: int,
) -> Changed | Refusal:
    """Change stage ``number`` until its first game is saved."""
    if tournament.status == "finished":
        return Refusal(N_("The tournament is finished; its stages can't change."))
    async with db.transaction() as conn:
        rows = await stages_db.list_stages(conn, tournament.id)
        if not 1 <= number <= len(rows):
            return Refusal(
                N_("The tournament has no stage {number}; /stages lists them."), {"number": number}
            )
        row = rows[number - 1]
        played = await stages_db.games_of_stage(conn, tournament.id, number)
        if played or row.status == "closed":
            return Refusal(
                N_("Stage {number} has games already: it can no longer be changed."),
                {"number": number},
            )
        spec = apply_settings(row.spec, settings)
        if isinstance(spec, Refusal):
            return spec
        before = await _players_before(conn, tournament, rows[: number - 1])
        others = [other.name for other in rows if other.id != row.id]
        refused = _check(spec, number == 1, before, others)
        if refused is not None:
            return refused
        if number > 1 and spec.entrants is not None and number < len(rows):
            after = rows[number].entrants
            if after is not None and after > spec.entrants:
                return Refusal(
                    N_("{entrants} entrants, but the stage after takes {after} of them (D13)."),
                    {"entrants": spec.entrants, "after": after},
                )
        changed = await stages_db.update_stage(conn, row.id, spec)
        await record(
            conn,
            "stage.change",
            row.id,
            tournament.id,
            actor_id,
            before=asdict(row),
            after=asdict(changed),
        )
        await publisher.enqueue(conn, tournament.id, standings=True)
    return Changed(changed, FollowUp(publisher=publisher, tournament_id=tournament.id))


async def stages_of(db: Database, tournament: TournamentRow) -> list[StageRow]:
    """The tournament's stages in order; [] while it is one stage."""
    async with db.read() as conn:
        return await stages_db.list_stages(conn, tournament.id)
