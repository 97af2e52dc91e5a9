"""How the game use cases' messages to other people read (``bot.publishing.notices.GameViews``):
the chief judges' approval requests (D7) and the players added at a table, with their
buttons, and an approval's decision. Rendered in the locale current when called;
the wiring (``bot.app``) gives them to the card's ``Desk`` and the live pages, whose
``GameTeller`` sends them for the use cases (``bot.services.games.Teller``)."""

from __future__ import annotations

from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.services.records import ApprovalRow, GameRecord, PlayerRow
from bot.texts.markup import html_text
from handlers.game_entry.callbacks import ApprovalDecision, RosterDecision
from handlers.game_entry.card import hundredths
from scoring.judging import APPROVAL_THRESHOLD


def approval_markup(approval_id: int, requested: int) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    builder.button(
        text="✅ " + _("Approve {value}").format(value=hundredths(requested)),
        callback_data=ApprovalDecision(id=approval_id, a="ok"),
    )
    builder.button(
        text="⬇ " + _("Lower to {value}").format(value=hundredths(APPROVAL_THRESHOLD)),
        callback_data=ApprovalDecision(id=approval_id, a="low"),
    )
    return builder.as_markup()


def roster_markup(player_id: int) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    builder.button(text="✅ " + _("Confirm"), callback_data=RosterDecision(id=player_id, ok=True))
    builder.button(text="✖ " + _("Reject"), callback_data=RosterDecision(id=player_id, ok=False))
    return builder.as_markup()


class Notices:
    """``bot.publishing.notices.GameViews`` of the game-entry router."""

    def approval_request(
        self, game: GameRecord, title: str, approval: ApprovalRow, judge: str
    ) -> tuple[str, InlineKeyboardMarkup]:
        seat = game.seat(approval.seat)
        text = _(
            "«{title}», game {code}: judge {judge} gave seat {seat} ({player}, winning team) "
            "<b>{value}</b> judge's extra points. Above 0.5 needs your approval (8.4.3); "
            "until then they don't count."
        ).format(
            title=html_text(title),
            code=game.code,
            judge=html_text(judge),
            seat=approval.seat,
            player=html_text(seat.nickname),
            value=hundredths(approval.requested),
        )
        return text, approval_markup(approval.id, approval.requested)

    def approval_decided(self, approval: ApprovalRow, game: GameRecord) -> str:
        seat = game.seat(approval.seat)
        if approval.status == "approved":
            return _("Approved: {value} for seat {seat} ({player}) in game {code}.").format(
                value=hundredths(approval.requested),
                seat=approval.seat,
                player=html_text(seat.nickname),
                code=game.code,
            )
        if approval.status == "lowered":
            return _("Lowered to {value}: seat {seat} ({player}) in game {code}.").format(
                value=hundredths(approval.granted or 0),
                seat=approval.seat,
                player=html_text(seat.nickname),
                code=game.code,
            )
        return _(
            "This request no longer applies: game {code} was corrected or annulled."
        ).format(code=game.code)

    def player_added(
        self, judge: str, player: PlayerRow, title: str
    ) -> tuple[str, InlineKeyboardMarkup]:
        text = _(
            "Judge {judge} added {player} to the roster of «{title}» at his table. "
            "Confirm him?"
        ).format(
            judge=html_text(judge),
            player=f"<b>{html_text(player.nickname)}</b>",
            title=html_text(title),
        )
        return text, roster_markup(player.id)


NOTICES = Notices()
