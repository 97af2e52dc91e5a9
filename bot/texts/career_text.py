"""The career rating as people read it: /me and /player (a profile, or a short card in a
group), /top (the leaderboard, its table and its picture's cells), the chief judge's
links and career names, and a tournament's rating kind.

Pure rendering: values in (``bot.reads.career``'s), HTML out. A rating is shown with two
decimals, a change with its sign (−2.55, +3.39), in the reader's decimal separator.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __

from bot.texts.markup import html_text
from bot.texts.rating_format import Pages, decimal_point, display_width, fit, points, right
from bot.texts.vocabulary import role_name
from scoring.judging import MINUS

if TYPE_CHECKING:
    from bot.reads.career import Career, Named, Profile, RoleLine, TournamentPlace

NAME_WIDTH = 18  # columns of a name in the leaderboard's table
TOP_TEXT = 100  # rows of /top's text; the rest is on the page and in the pictures

KIND_NAMES = {
    "tournament": __("a tournament (factors 16 and 12)"),
    "elite": __("an elite tournament (factors 64 and 48)"),
    "unrated": __("unrated: its games move no rating"),
    "club": __("a club evening (factors 4 and 3)"),
}
KIND_BUTTONS = {
    "tournament": __("Tournament"),
    "elite": __("Elite"),
    "unrated": __("Unrated"),
}


def rating(value: float) -> str:
    """A rating: 1012.45 (1012,45 in Russian)."""
    return f"{value:.2f}".replace(".", decimal_point())


def change(value: float) -> str:
    """A change of rating with its sign: +3.39, −2.55, 0.00."""
    text = f"{abs(value):.2f}".replace(".", decimal_point())
    if text.strip("0.,") == "":
        return text
    return ("+" if value > 0 else MINUS) + text


def percent(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%" if whole else "—"


def bold(name: str) -> str:
    return "<b>" + html_text(name) + "</b>"


def quoted(title: str) -> str:
    return "«" + html_text(title) + "»"


# -- a profile ------------------------------------------------------------------------------


def place_line(profile: Profile) -> str:
    if profile.place is not None:
        return _("place {place} of {count} on the leaderboard").format(
            place=profile.place, count=profile.ranked
        )
    return _(
        "not on the leaderboard yet: {games} of the {needed} rated games it needs"
    ).format(games=profile.rated_games, needed=profile.min_games)


def no_rated_games(name: str) -> str:
    return _(
        "{name} has no rated games yet: the career rating counts every game saved in a "
        "started tournament that a side won."
    ).format(name=bold(name))


def games_count(count: int) -> str:
    return _("{count} game", "{count} games", count).format(count=count)


def times(count: int) -> str:
    return _("{count} time", "{count} times", count).format(count=count)


def short_card(profile: Profile) -> str:
    """/me and /player in a group: one line."""
    name = profile.person.name
    if not profile.rated_games:
        return no_rated_games(name)
    return _(
        "{name}: rating {rating}, {place} · {games} rated · wins {wins}"
    ).format(
        name=bold(name),
        rating="<b>" + rating(profile.rating) + "</b>",
        place=place_line(profile),
        games=games_count(profile.rated_games),
        wins=percent(profile.wins, profile.games),
    )


def _role_rows(lines: Sequence[RoleLine]) -> tuple[str, list[str]]:
    titles = [_("Role"), _("Games"), _("Wins"), "%"]
    names = [role_name(line.role) for line in lines]
    width = max(display_width(title) for title in [titles[0], *names])
    header = f"{fit(titles[0], width)} {right(titles[1], 5)} {right(titles[2], 5)} {right('%', 4)}"
    rows = [
        f"{fit(name, width)} {right(str(line.games), 5)} {right(str(line.wins), 5)} "
        + right(percent(line.wins, line.games).rstrip("%"), 4)
        for name, line in zip(names, lines, strict=True)
    ]
    return html_text(header), [html_text(row) for row in rows]


def profile_pages(profile: Profile) -> list[str]:
    """/me and /player in private: the whole profile, in messages under the limit."""
    pages = Pages()
    name = profile.person.name
    pages.text(_("<b>{name}</b> · career rating").format(name=html_text(name)))
    if profile.rated_games:
        pages.text(
            _("Rating: {rating} · {place}").format(
                rating="<b>" + rating(profile.rating) + "</b>", place=place_line(profile)
            )
            + "\n"
            + _("Rated games: {count}").format(count=profile.rated_games)
        )
    else:
        pages.text(no_rated_games(name))
    if profile.games:
        pages.text(
            _("Games: {games} · wins {wins} ({percent})").format(
                games=profile.games, wins=profile.wins, percent=percent(profile.wins, profile.games)
            )
        )
        header, rows = _role_rows(profile.roles)
        pages.table(header, rows)
        pages.text("\n".join(profile_details(profile)))
    if profile.tournaments:
        lines = [_("<b>Tournaments</b>")]
        for played in profile.tournaments:
            lines.append("• " + tournament_line(played))
        pages.text("\n".join(lines))
    return pages.pages()


def profile_details(profile: Profile) -> list[str]:
    """Best moves, first-night deaths, judge's points, penalties and fouls: a line each."""
    lines = []
    if profile.best_moves:
        named = ", ".join(
            _("{black} black ×{times}").format(black=black, times=count)
            for black, count in sorted(profile.black_named.items(), reverse=True)
        )
        lines.append(
            _("Best move: {times} ({named})").format(times=times(profile.best_moves), named=named)
        )
    else:
        lines.append(_("Best move: never"))
    lines.append(_("Killed on the first night: {times}").format(times=times(profile.first_killed)))
    lines.append(_("Judge's points: {points}").format(points=points(profile.judge_points)))
    lines.append(
        _("Penalties: {penalties} · disqualifications: {disqualified}").format(
            penalties=profile.penalties, disqualified=profile.disqualified
        )
    )
    if profile.live_games:
        lines.append(
            _("Fouls: {fouls} in {games} entered live").format(
                fouls=profile.fouls, games=games_count(profile.live_games)
            )
        )
    return lines


def tournament_line(played: TournamentPlace) -> str:
    """A tournament of his, by which nickname, and his place there."""
    where = _("{title} as {nick}").format(title=quoted(played.title), nick=bold(played.nickname))
    if played.place is None:
        told = _("no place yet")
    elif played.finished:
        told = _("place {place} of {count}").format(place=played.place, count=played.players)
    else:
        told = _("place {place} of {count} so far").format(
            place=played.place, count=played.players
        )
    return f"{where}: {told}"


def history_caption(profile: Profile) -> str:
    return _("{name}: rating after each rated game ({count})").format(
        name=html_text(profile.person.name), count=len(profile.history)
    )


# -- the leaderboard ------------------------------------------------------------------------


def top_title() -> str:
    return _("Career rating")


def top_pages(rows: Sequence[Named], min_games: int, page_url: str | None = None) -> list[str]:
    """/top: everyone with at least ``min_games`` rated games (the first ``TOP_TEXT``)."""
    pages = Pages()
    if not rows:
        pages.text(
            _("Nobody has {games} yet: the leaderboard shows players with at least that many "
              "rated games.").format(games=games_count(min_games))
        )
        return pages.pages()
    pages.text("<b>" + html_text(top_title()) + "</b> · " + top_subtitle(len(rows), min_games))
    shown = rows[:TOP_TEXT]
    titles = [_("Player"), _("Rating"), _("Games")]
    width = min(max(display_width(name) for name in [titles[0], *(r.name for r in shown)]),
                NAME_WIDTH)
    place_width = max(len(str(r.row.place)) for r in shown)
    header = (
        f"{right('#', place_width)} {fit(titles[0], width)} {right(titles[1], 8)}"
        f" {right(titles[2], 5)}"
    )
    table = [
        html_text(
            f"{right(str(r.row.place), place_width)} {fit(r.name, width)}"
            f" {right(rating(r.row.rating), 8)} {right(str(r.row.games), 5)}"
        )
        for r in shown
    ]
    pages.table(html_text(header), table)
    if len(rows) > len(shown):
        pages.text(_("…and {count} more.").format(count=len(rows) - len(shown)))
    if page_url:
        pages.text(_("The whole leaderboard: {url}").format(url=html_text(page_url)))
    return pages.pages()


def top_columns() -> list[str]:
    """The picture's seven columns."""
    return [_("#"), _("Player"), _("Rating"), _("As red"), _("As black"), _("Wins"), _("Games")]


def top_cells(career: Career, rows: Sequence[Named]) -> list[list[str]]:
    cells = []
    for named in rows:
        row = named.row
        sums = career.sums_of(row.person_id)
        cells.append([
            str(row.place), named.name, rating(row.rating), change(sums.red), change(sums.black),
            percent(career.rated_wins(row.person_id), row.games), str(row.games),
        ])
    return cells


def top_subtitle(count: int, min_games: int) -> str:
    return _("players with at least {games} rated: {count}").format(
        games=games_count(min_games), count=count
    )


def top_caption(count: int, min_games: int) -> str:
    return _("Career rating: {count} with at least {games} rated").format(
        count=count, games=games_count(min_games)
    )


# -- finding a person -------------------------------------------------------------------------


def nobody_named(text: str) -> str:
    return _("Nobody named {name} has played in my tournaments.").format(name=bold(text))


def which_one(text: str) -> str:
    return _("Several players are named {name}. Which one?").format(name=bold(text))


def person_button(name: str, played: Sequence[tuple[str, str]]) -> str:
    """A button of a person: his name and where he played (the first two tournaments)."""
    where = ", ".join(title for title, _nick in played[:2])
    if len(played) > 2:
        where += ", …"
    return f"{name} ({where})" if where else name


def not_played_yet() -> str:
    return _(
        "You have played no game in my tournaments yet. /top shows the career rating."
    )


def player_usage() -> str:
    return _("Send /player and a nickname, e.g. /player Alex.")


def more_in_private(command: str) -> str:
    return _("More: {command} in a private chat with me.").format(command=html_text(command))


# -- the chief judge's links --------------------------------------------------------------------


def link_usage() -> str:
    return _(
        "Send /link and the nickname of a player of your tournament, e.g. /link Alex; "
        "/link Alex = Alexander looks for the other person by another name. The player's "
        "games in other tournaments then count as one person's."
    )


def played_text(played: Sequence[tuple[str, str]]) -> str:
    if not played:
        return _("no tournaments")
    return ", ".join(
        _("{title} as {nick}").format(title=quoted(title), nick=bold(nickname))
        for title, nickname in played
    )


def link_found_nobody(nickname: str, query: str) -> str:
    return _(
        "Nobody else named {query} has played in my tournaments, so {nick} stays as he is. "
        "/link {plain} = NAME looks for another name."
    ).format(query=bold(query), nick=bold(nickname), plain=html_text(nickname))


def link_question(nickname: str, title: str, mine: Sequence[tuple[str, str]]) -> str:
    return _("Who is {nick} of {title} ({played})? Tap the same person:").format(
        nick=bold(nickname), title=quoted(title), played=played_text(mine)
    )


def linked_text(nickname: str, title: str, target: str, played: Sequence[tuple[str, str]],
                merged: bool) -> str:
    if merged:
        said = _("🔗 {nick} of {title} and {name} are one person now: {played}.")
    else:
        said = _("🔗 {nick} of {title} is {name} now: {played}.")
    return said.format(
        nick=bold(nickname), title=quoted(title), name=bold(target), played=played_text(played)
    )


def undo_hint() -> str:
    return _("↩ Undo takes it back, as does /undo_link.")


def undo_button() -> str:
    return _("↩ Undo")


def renamed_text(before: str, after: str) -> str:
    return _("✏️ The career name of {before} is {after} now.").format(
        before=bold(before), after=bold(after)
    )


def rename_usage() -> str:
    return _(
        "Send /career_name, the nickname of a player of your tournament, = and his name "
        "in the career rating, e.g. /career_name Alex = Alexander."
    )


def undone_text(action: str, first: str, second: str) -> str:
    if action == "person.rename":
        return _("↩ Taken back: the career name is {name} again.").format(name=bold(first))
    return _("↩ Taken back: {first} and {second} are two persons again.").format(
        first=bold(first), second=bold(second)
    )


# -- a tournament's rating kind -------------------------------------------------------------------


def kind_name(kind: str) -> str:
    return str(KIND_NAMES[kind])


def kind_card(title: str, kind: str) -> str:
    return _(
        "In the career rating {title} counts as {kind}: its games move each player by "
        "these factors, halved at a table of fewer than ten. Change it:"
    ).format(title=quoted(title), kind=kind_name(kind))


def kind_set(title: str, kind: str) -> str:
    return _("{title} counts in the career rating as {kind} now.").format(
        title=quoted(title), kind=kind_name(kind)
    )


def kind_button(kind: str) -> str:
    return str(KIND_BUTTONS[kind])
