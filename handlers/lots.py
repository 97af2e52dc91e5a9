"""Lots (8.7.5, D12): the chief judge draws one for each group still tied after
8.7.1-8.7.4; the draw is recorded once and the standings follow it from then on."""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Mapping, Sequence

from aiogram import Bot, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.db import lots as lots_db
from bot.db import players as players_db
from bot.db import staff as staff_db
from bot.db import tournaments as tournaments_db
from bot.db.audit import audit
from bot.db.connection import Conn, Database
from bot.db.tournaments import TournamentRow
from bot.i18n import DEFAULT_LOCALE
from bot.publishing import Publisher
from bot.rating_format import esc, place_labels
from bot.standings import StandingsService, TournamentStandings
from scoring import InvalidGameError

log = logging.getLogger(__name__)
router = Router(name="lots")


class LotDraw(CallbackData, prefix="ld"):
    tournament_id: int
    group: str  # digest of the tied group's player ids (a long id list exceeds 64 bytes)


def group_digest(player_ids: Sequence[int]) -> str:
    return hashlib.sha256(lots_db.group_key(player_ids).encode()).hexdigest()[:16]


async def _names_to_ids(conn: Conn, tournament_id: int) -> dict[str, int]:
    """Nickname → player id; the standings name players by nickname."""
    found: dict[str, int] = {}
    for player in await players_db.list_players(conn, tournament_id):
        if player.status != "rejected" or player.nickname not in found:
            found[player.nickname] = player.id
    return found


def _tied_groups(ts: TournamentStandings) -> list[tuple[str, list[str]]]:
    """(shared place label, players in standings order) of each group still tied."""
    rows = ts.standings.rows
    labels = place_labels([r.place for r in rows])
    by_place: dict[int, tuple[str, list[str]]] = {}
    for label, row in zip(labels, rows, strict=True):
        by_place.setdefault(row.place, (label, []))[1].append(row.player)
    return [group for group in by_place.values() if len(group[1]) > 1]


async def _chief_tournaments(conn: Conn, message: Message, user_id: int) -> list[TournamentRow]:
    if message.chat.type == "private":
        return [
            s.tournament
            for s in await tournaments_db.tournaments_for_staff(
                conn, user_id, include_finished=True
            )
            if s.role == "chief"
        ]
    tournament = await tournaments_db.running_tournament_for_chat(conn, message.chat.id)
    if tournament is None:
        known = await tournaments_db.tournaments_for_chat(conn, message.chat.id)
        tournament = known[-1] if known else None
    if tournament is None:
        return []
    role = await staff_db.staff_role(conn, tournament.id, user_id)
    return [tournament] if role == "chief" else []


@router.message(Command("lot"))
async def lot_command(message: Message, db: Database, standings: StandingsService) -> None:
    user = message.from_user
    assert user is not None  # the identity middleware lets only real senders through
    async with db.read() as conn:
        chosen = await _chief_tournaments(conn, message, user.id)
    if not chosen:
        await message.answer(_("Only the tournament's chief judge draws lots (8.7.5)."))
        return
    offered = 0
    for tournament in chosen:
        try:
            ts = await standings.get(tournament.id)
        except InvalidGameError:
            await message.answer(
                _(
                    "{title}: the standings can't be computed until a stored game is "
                    "corrected; no lot can be drawn."
                ).format(title=esc(tournament.title))
            )
            continue
        groups = _tied_groups(ts)
        if not groups:
            continue
        async with db.read() as conn:
            ids = await _names_to_ids(conn, tournament.id)
        lines = [
            _(
                "<b>{title}</b>: players still tied after 8.7.1–8.7.4. A lot decides their "
                "order (8.7.5); it is drawn once and kept."
            ).format(title=esc(tournament.title))
        ]
        keyboard = []
        for label, names in groups:
            lines.append(
                _("Places {places}: {players}").format(
                    places=label, players=", ".join(esc(n) for n in names)
                )
            )
            digest = group_digest([ids[n] for n in names])
            keyboard.append(
                [
                    InlineKeyboardButton(
                        text=_("Draw for places {places}").format(places=label),
                        callback_data=LotDraw(tournament_id=tournament.id, group=digest).pack(),
                    )
                ]
            )
        offered += 1
        await message.answer(
            "\n".join(lines), reply_markup=InlineKeyboardMarkup(inline_keyboard=keyboard)
        )
    if not offered:
        await message.answer(_("No players are tied: no lot is needed (8.7.5)."))


@router.callback_query(LotDraw.filter())
async def lot_draw(
    callback: CallbackQuery,
    callback_data: LotDraw,
    db: Database,
    bot: Bot,
    i18n: I18n,
    standings: StandingsService,
    publisher: Publisher,
) -> None:
    user = callback.from_user
    tid = callback_data.tournament_id
    async with db.read() as conn:
        role = await staff_db.staff_role(conn, tid, user.id)
        ids = await _names_to_ids(conn, tid)
        drawn = await lots_db.lots_for_tournament(conn, tid)
        tournament = await tournaments_db.get_tournament(conn, tid)
    if role != "chief":
        await callback.answer(
            _("Only the tournament's chief judge draws lots (8.7.5)."), show_alert=True
        )
        return
    try:
        ts = await standings.get(tid)
    except InvalidGameError:
        await callback.answer(_("The standings can't be computed now; no lot can be drawn."))
        return
    group = next(
        (
            (label, names)
            for label, names in _tied_groups(ts)
            if all(n in ids for n in names)
            and group_digest([ids[n] for n in names]) == callback_data.group
        ),
        None,
    )
    if group is None:
        if any(group_digest(lot.group) == callback_data.group for lot in drawn):
            await callback.answer(_("The lot for this group was drawn already and is kept (D12)."))
        else:
            await callback.answer(
                _("This card is out of date: the standings changed. Send /lot again.")
            )
        await _retire_button(callback, callback_data, None)  # it leads nowhere any more
        return
    label, names = group
    by_id = {pid: name for name, pid in ids.items()}
    order = [ids[n] for n in names]
    secrets.SystemRandom().shuffle(order)
    first = int(label.split("–")[0])
    async with db.transaction() as conn:
        if await lots_db.get_lot(conn, tid, order) is not None:
            lot = None  # drawn by another tap meanwhile: keep that one
        else:
            lot = await lots_db.record_lot(conn, tid, order, drawn_by=user.id)
            await audit(
                conn,
                action="lot.draw",
                entity="lot",
                entity_id=lot.id,
                tournament_id=tid,
                actor_id=user.id,
                after={
                    "places": label,
                    "order": [{"player_id": pid, "nickname": by_id[pid]} for pid in lot.order],
                    "drawn_at": lot.drawn_at,
                },
            )
            # The group reads the tournament's language.
            with i18n.use_locale(tournament.language if tournament else DEFAULT_LOCALE):
                note = _(
                    "🎲 Lot for places {places} (8.7.5), drawn by the chief judge: {order}."
                ).format(places=label, order=_drawn(first, lot.order, by_id))
            await publisher.enqueue(conn, tid, note=note, standings=True)  # the order changes
    if lot is None:
        await callback.answer(_("The lot for this group was drawn already and is kept (D12)."))
        await _retire_button(callback, callback_data, None)
        return
    await callback.answer()
    await _retire_button(
        callback,
        callback_data,
        # In the tournament's group the note below is the one announcement of the draw;
        # in private the offer itself tells the chief judge what was drawn.
        None
        if tournament is not None and _in_chat(callback, tournament.chat_id)
        else _("Lot drawn for places {places} (8.7.5): {order}. It is recorded and kept.").format(
            places=label, order=_drawn(first, lot.order, by_id)
        ),
    )
    await publisher.publish(bot, tid, now=True)


def _in_chat(callback: CallbackQuery, chat_id: int | None) -> bool:
    return callback.message is not None and callback.message.chat.id == chat_id


async def _retire_button(callback: CallbackQuery, data: LotDraw, line: str | None) -> None:
    """The offer loses the button of the group just drawn (the others stay), and gets
    ``line`` under its text."""
    message = callback.message
    if not isinstance(message, Message):
        return
    packed = data.pack()
    rows = [
        kept
        for row in (message.reply_markup.inline_keyboard if message.reply_markup else [])
        if (kept := [b for b in row if b.callback_data != packed])
    ]
    markup = InlineKeyboardMarkup(inline_keyboard=rows) if rows else None
    try:
        if line is None:
            await message.edit_reply_markup(reply_markup=markup)
        else:
            await message.edit_text(f"{message.html_text}\n\n{line}", reply_markup=markup)
    except TelegramAPIError as exc:  # gone or unchanged: the button is refused anyway
        log.debug("lot offer not edited: %s", exc)


def _drawn(first: int, order: Sequence[int], by_id: Mapping[int, str]) -> str:
    return ", ".join(f"{first + n}. {esc(by_id[pid])}" for n, pid in enumerate(order))
