"""/rating: the standings in the tournament's chat; in private also the player's own
row and his points game by game (8.2-8.7).

``/rating`` shows the top 20, ``/rating all`` everyone. ``/rating image`` belongs to
another router (the picture) and is left alone here.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message
from aiogram.utils.i18n import gettext as _

from bot.reads.rating import Unsettled, games_of, tournaments_of, unsettled
from bot.reads.standings import StandingsService, TournamentStandings, lot_due
from bot.services.records import Database, PlayerRow, TournamentRow
from bot.services.staff import staff_tournaments
from bot.services.tournaments import chat_tournament
from bot.texts.markup import html_text
from bot.texts.rating_format import GameView, Pages, breakdown_blocks, own_row_line, place_labels
from bot.texts.standings_text import TOP, hidden, rating_block
from scoring import InvalidGameError

router = Router(name="rating")

ALL_WORDS = frozenset({"all", "все", "всё"})
IMAGE_WORD = "image"  # /rating image: the picture, another router's


def not_image(message: Message, command: CommandObject) -> bool:
    words = (command.args or "").split()
    return not words or words[0].lower() != IMAGE_WORD


def problem_detail(error: InvalidGameError) -> str:
    """The first rule a stored game breaks, as ``RULE: what is wrong`` (plain text)."""
    problem = error.problems[0] if error.problems else None
    if problem is None:
        return ""
    prefix = f"{problem.rule}: " if problem.rule[:1].isdigit() else ""  # not D1-D17
    return prefix + _(problem.template).format(**problem.params)


def problem_line(error: InvalidGameError) -> str:
    return _(
        "The standings can't be computed: a stored game breaks a rule ({detail}). "
        "The chief judge must correct it."
    ).format(detail=html_text(problem_detail(error)))


async def render_standings(
    pages: Pages,
    db: Database,
    tournament: TournamentRow,
    ts: TournamentStandings,
    *,
    show_all: bool,
    reveal: bool = False,
) -> Unsettled:
    """Title, table and notes of one tournament; returns its games that may change.
    ``reveal``: the reader is its judge or chief judge, who sees a hidden stage (D17)."""
    found = await unsettled(db, tournament.id, ts)
    rating_block(
        pages,
        tournament.title,
        ts.standings,
        games=len(ts.tournament.games),
        show_all=show_all,
        pending=found.games,
        pending_players=found.players,
        lot_due=lot_due(tournament, ts),
        stage=ts.stage,
        reveal=reveal,
    )
    return found


# --------------------------------------------------------------------------- handlers


@router.message(Command("rating"), not_image)
async def rating(
    message: Message, command: CommandObject, db: Database, standings: StandingsService
) -> None:
    words = (command.args or "").split()
    if words and (len(words) > 1 or words[0].lower() not in ALL_WORDS):
        await message.answer(
            _("Send /rating for the top {top}, or /rating all for everyone.").format(top=TOP)
        )
        return
    show_all = bool(words)
    if message.chat.type == "private":
        await _private(message, db, standings, show_all=show_all)
    else:
        await _group(message, db, standings, show_all=show_all)


async def _group(
    message: Message, db: Database, standings: StandingsService, *, show_all: bool
) -> None:
    tournament = await chat_tournament(db, message.chat.id, latest=True)
    if tournament is None:
        await message.answer(
            _("This group has no tournament. A chief judge starts one here with /new_tournament.")
        )
        return
    pages = Pages()
    try:
        ts = await standings.get(tournament.id)
        await render_standings(pages, db, tournament, ts, show_all=show_all)
    except InvalidGameError as error:
        await message.answer(problem_line(error))
        return
    for page in pages.pages():
        await message.answer(page)


async def _private(
    message: Message, db: Database, standings: StandingsService, *, show_all: bool
) -> None:
    user = message.from_user
    assert user is not None  # the identity middleware lets only real senders through
    mine = await staff_tournaments(db, user.id)
    chosen = await tournaments_of(db, user.id, mine)
    staffed = {s.tournament.id for s in mine}
    if not chosen:
        await message.answer(_("You are not in any tournament yet. Join one with /join NICKNAME."))
        return
    for tournament, player in chosen:
        pages = Pages()
        try:
            ts = await standings.get(tournament.id)
            reveal = tournament.id in staffed
            await render_standings(pages, db, tournament, ts, show_all=show_all, reveal=reveal)
            if player is not None and (reveal or not hidden(ts.stage)):
                _render_player(pages, ts, player, await games_of(db, ts, player))
        except InvalidGameError as error:
            await message.answer(
                html_text(tournament.title) + "\n" + problem_line(error)
            )
            continue
        for page in pages.pages():
            await message.answer(page)


def _render_player(
    pages: Pages, ts: TournamentStandings, player: PlayerRow, views: list[GameView]
) -> None:
    rows = ts.standings.rows
    labels = place_labels([r.place for r in rows])
    mine = next(
        (
            (label, row)
            for label, row in zip(labels, rows, strict=True)
            if row.player == player.nickname
        ),
        None,
    )
    if mine is None:
        pages.text(
            _("You ({nickname}) have no games that count yet.").format(
                nickname=html_text(player.nickname)
            )
        )
        return
    label, row = mine
    pages.text(own_row_line(row, label, len(rows)))
    pages.text(_("<b>Your games</b> (points with the current Ci):"))
    for block in breakdown_blocks(views):
        pages.text(block)
