"""A club's season table (docs/club.md, "Season"): per person, the points of section 8
summed over the season's evenings (each evening scored as its own table, by the same
engine as ``python -m scoring standings``), the average per game, games and wins.

The season runs a year from the club's ``season_start`` (MM-DD, in the club's zone): the
one holding ``now``. Evenings running or finished count; a guest who came back under
his nickname is one person (``bot.services.evening_play``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from fractions import Fraction
from zoneinfo import ZoneInfo

from bot.db import evening_play as repo
from bot.db import players as players_db
from bot.db.clubs import ClubRow
from bot.db.connection import Database
from bot.db.scoring_bridge import load_scoring_tournament
from bot.db.timeutil import utcnow
from scoring import compute_standings


@dataclass(frozen=True, slots=True)
class SeasonRow:
    place: int  # equal points share a place
    person_id: int
    name: str  # the person's career name
    points: Fraction
    games: int
    wins: Fraction  # 8.7.2 (a share where a game counts in part)

    @property
    def average(self) -> Fraction:
        return self.points / self.games if self.games else Fraction(0)


@dataclass(frozen=True, slots=True)
class Season:
    club: ClubRow
    first: date  # the season's first day, local
    last: date  # its last day
    evenings: int
    rows: tuple[SeasonRow, ...]


def season_bounds(season_start: str, timezone: str, now: datetime) -> tuple[datetime, datetime]:
    """[start, end) of the season holding ``now``: from the latest ``MM-DD`` on or before
    today (local midnight) for a year."""
    zone = ZoneInfo(timezone)
    today = now.astimezone(zone).date()
    month, day = (int(part) for part in season_start.split("-"))

    def first_of(year: int) -> date:
        try:
            return date(year, month, day)
        except ValueError:  # 02-29 in a common year: the 1st of March
            return date(year, 3, 1)

    start = first_of(today.year)
    if start > today:
        start = first_of(today.year - 1)
    end = first_of(start.year + 1)

    def midnight(d: date) -> datetime:
        return datetime(d.year, d.month, d.day, tzinfo=zone)

    return midnight(start), midnight(end)


async def season(db: Database, club: ClubRow, now: datetime | None = None) -> Season:
    start, end = season_bounds(club.season_start, club.timezone, now or utcnow())
    sums: dict[int, list[int | Fraction]] = {}  # person -> [points, games, wins]
    names: dict[int, str] = {}
    async with db.read() as conn:
        evenings = await repo.season_tournaments(conn, club.id, start, end)
        for tid in evenings:
            standings = compute_standings(await load_scoring_tournament(conn, tid))
            ids = {p.nickname: p.id for p in await players_db.list_players(conn, tid)}
            persons = await repo.persons_of(conn, list(ids.values()))
            for row in standings.rows:
                person, name = persons[ids[row.player]]
                names[person] = name
                found = sums.setdefault(person, [Fraction(0), 0, 0])
                found[0] += row.total
                found[1] += row.games
                found[2] += row.wins
    ordered = sorted(sums.items(), key=lambda item: (-item[1][0], names[item[0]].casefold()))
    rows: list[SeasonRow] = []
    for person, (points, games, wins) in ordered:
        place = rows[-1].place if rows and rows[-1].points == points else len(rows) + 1
        rows.append(
            SeasonRow(place, person, names[person], Fraction(points), int(games), Fraction(wins))
        )
    return Season(
        club, start.date(), (end - timedelta(days=1)).date(), len(evenings), tuple(rows)
    )
