"""The refusals many commands share (each use case keeps its own particular ones)."""

from __future__ import annotations

from bot.services import N_, Refusal

ONLY_CHIEF = Refusal(N_("Only the chief judge of this tournament can do that."))
ONLY_STAFF = Refusal(N_("Only the judges of this tournament can do that."))
NOT_CHIEF_OF_ANY = Refusal(N_("You are not the chief judge of any unfinished tournament."))
NOT_JUDGE_OF_ANY = Refusal(N_("You are not a judge of any unfinished tournament."))
SEND_IN_GROUP = Refusal(N_("Send this in the tournament's group."))
SEND_IN_PRIVATE = Refusal(N_("Send this to me in a private chat."))
NO_TOURNAMENT_HERE = Refusal(
    N_(
        "There is no unfinished tournament in this group. "
        "The chief judge starts one with /new_tournament."
    )
)
OUT_OF_DATE = Refusal(N_("This card is out of date."))
REGISTRATION_CLOSED = Refusal(N_("Registration is closed: the tournament is finished."))
