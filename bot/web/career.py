"""The career rating's public pages: ``/top`` (the leaderboard) and ``/player/{id}`` (a
person's profile, with ``/player/{id}/rating.png``, his rating over his games).

Plain HTML built here, no script; the figures are the read model's
(``bot.reads.career``), the words the bot's own in the reader's language (Russian
unless ``?lang=en`` or a browser that prefers English). Only saved games count, so
nothing of a game still being played (its roles) can show; people are named by their
career names and nicknames, never by anything of their Telegram accounts.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from html import escape

from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _
from aiohttp import web

from bot.reads import career as reads
from bot.reads.career import CareerService, Profile
from bot.reads.standings import StandingsService
from bot.services.records import Database
from bot.texts import career_text as texts
from bot.texts.career_image import render_history
from bot.texts.i18n import DEFAULT_LOCALE, use_language
from bot.texts.rating_format import decimal_point
from bot.texts.vocabulary import role_name

TOP_ROWS = 500  # rows of the page's leaderboard
# The leaderboard's columns: the name to the left; the sums as red and as black only
# where the screen is wide enough (a phone shows place, name, rating, wins, games).
_CLASSES = ("", ' class="name"', "", ' class="wide"', ' class="wide"', "", "")


@dataclass(frozen=True, slots=True)
class CareerPages:
    db: Database
    career: CareerService
    standings: StandingsService
    i18n: I18n
    min_games: int


PAGES = web.AppKey("career_pages", CareerPages)


def add_career(app: web.Application, pages: CareerPages) -> None:
    app[PAGES] = pages
    app.router.add_get("/top", top_page)
    app.router.add_get(r"/player/{id:\d{1,18}}", player_page)
    app.router.add_get(r"/player/{id:\d{1,18}}/rating.png", rating_picture)


def _locale(request: web.Request) -> str:
    asked = request.query.get("lang", "")
    if asked in ("ru", "en"):
        return asked
    wanted = request.headers.get("Accept-Language", "").split(",")[0].strip().lower()
    return "en" if wanted.startswith("en") else DEFAULT_LOCALE


def _html(title: str, body: str, locale: str) -> web.Response:
    page = f"""<!doctype html>
<html lang="{locale}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<style>
body {{ font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0;
       background: #f6f7fb; color: #191923; }}
main {{ max-width: 960px; margin: 0 auto; padding: 16px; }}
h1 {{ font-size: 1.6em; margin: 0.4em 0; }}
p.note {{ color: #6e6e7d; }}
table {{ border-collapse: collapse; width: 100%; background: #fff; }}
th {{ background: #264678; color: #fff; text-align: right; padding: 8px 10px; }}
td {{ padding: 7px 10px; text-align: right; border-bottom: 1px solid #e5e8f0; }}
th.name, td.name {{ text-align: left; }}
tr:nth-child(even) td {{ background: #ecf1fa; }}
tr.podium td {{ background: #fff4d6; }}
a {{ color: #264678; }}
img {{ max-width: 100%; height: auto; border: 1px solid #e5e8f0; }}
ul {{ padding-left: 1.2em; }}
div.scroll {{ overflow-x: auto; }}
@media (max-width: 600px) {{
  .wide {{ display: none; }}
  th, td {{ padding: 6px 5px; }}
  main {{ padding: 10px; }}
}}
</style></head>
<body><main>
{body}
</main></body></html>
"""
    return web.Response(text=page, content_type="text/html",
                        headers={"Cache-Control": "no-cache",
                                 "X-Content-Type-Options": "nosniff",
                                 "Referrer-Policy": "no-referrer"})


def _link(person_id: int, name: str, locale: str) -> str:
    query = "" if locale == DEFAULT_LOCALE else f"?lang={locale}"
    return f'<a href="/player/{person_id}{query}">{escape(name)}</a>'


async def top_page(request: web.Request) -> web.Response:
    pages = request.app[PAGES]
    locale = _locale(request)
    state = await pages.career.current()
    rows = await reads.leaderboard(pages.db, state, pages.min_games)
    with use_language(pages.i18n, locale):
        title = texts.top_title()
        parts = [f"<h1>{escape(title)}</h1>"]
        if not rows:
            parts.append(f'<p class="note">{texts.top_pages([], pages.min_games)[0]}</p>')
        else:
            subtitle = texts.top_subtitle(len(rows), pages.min_games)
            parts.append(f'<p class="note">{escape(subtitle)}</p>')
            head = "".join(
                f"<th{_CLASSES[n]}>{escape(c)}</th>" for n, c in enumerate(texts.top_columns())
            )
            body = []
            for named, cells in zip(rows[:TOP_ROWS], texts.top_cells(state, rows[:TOP_ROWS]),
                                    strict=True):
                shown = [escape(cell) for cell in cells]
                shown[1] = _link(named.row.person_id, named.name, locale)
                podium = ' class="podium"' if named.row.place <= 3 else ""
                body.append(f"<tr{podium}>" + "".join(
                    f"<td{_CLASSES[n]}>{cell}</td>" for n, cell in enumerate(shown)) + "</tr>")
            parts.append(f'<div class="scroll"><table><thead><tr>{head}</tr></thead>'
                         f"<tbody>{''.join(body)}</tbody></table></div>")
            if len(rows) > TOP_ROWS:
                more = _("…and {count} more.").format(count=len(rows) - TOP_ROWS)
                parts.append(f'<p class="note">{more}</p>')
    return _html(title, "\n".join(parts), locale)


async def _profile(request: web.Request) -> tuple[CareerPages, Profile]:
    pages = request.app[PAGES]
    person_id = int(request.match_info["id"])
    state = await pages.career.current()
    found = await reads.profile(pages.db, state, pages.standings, person_id, pages.min_games)
    if found is None:
        raise web.HTTPNotFound(text="No such player.")
    if found.person.id != person_id:  # merged into another since: his address now
        suffix = request.path.removeprefix(f"/player/{person_id}")
        raise web.HTTPMovedPermanently(f"/player/{found.person.id}{suffix}"
                                       + (f"?{request.query_string}" if request.query_string
                                          else ""))
    return pages, found


async def player_page(request: web.Request) -> web.Response:
    pages, profile = await _profile(request)
    locale = _locale(request)
    with use_language(pages.i18n, locale):
        name = profile.person.name
        parts = [f"<h1>{escape(name)}</h1>"]
        if profile.rated_games:
            parts.append("<p>" + _("Rating: {rating} · {place}").format(
                rating="<b>" + texts.rating(profile.rating) + "</b>",
                place=texts.place_line(profile)) + "<br>"
                + _("Rated games: {count}").format(count=profile.rated_games) + "</p>")
            query = "" if locale == DEFAULT_LOCALE else f"?lang={locale}"
            parts.append(f'<p><img src="/player/{profile.person.id}/rating.png{query}" '
                         f'alt="{escape(texts.history_caption(profile), quote=True)}" '
                         'width="1200" height="675"></p>')
        else:
            parts.append(f"<p>{texts.no_rated_games(name)}</p>")
        if profile.games:
            parts.append("<p>" + _("Games: {games} · wins {wins} ({percent})").format(
                games=profile.games, wins=profile.wins,
                percent=texts.percent(profile.wins, profile.games)) + "</p>")
            head = "".join(f'<th{" class=name" if n == 0 else ""}>{escape(c)}</th>'
                           for n, c in enumerate([_("Role"), _("Games"), _("Wins"), "%"]))
            body = "".join(
                f'<tr><td class="name">{escape(role_name(line.role))}</td><td>{line.games}</td>'
                f"<td>{line.wins}</td><td>{texts.percent(line.wins, line.games)}</td></tr>"
                for line in profile.roles
            )
            parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
            details = texts.profile_details(profile)
            parts.append("<ul>" + "".join(f"<li>{line}</li>" for line in details) + "</ul>")
        if profile.tournaments:
            parts.append(f"<h2>{_('Tournaments')}</h2><ul>" + "".join(
                f"<li>{texts.tournament_line(p)}</li>" for p in profile.tournaments) + "</ul>")
        back = "/top" if locale == DEFAULT_LOCALE else f"/top?lang={locale}"
        parts.append(f'<p><a href="{back}">{escape(texts.top_title())}</a></p>')
    return _html(name, "\n".join(parts), locale)


async def rating_picture(request: web.Request) -> web.Response:
    pages, profile = await _profile(request)
    if not profile.history:
        raise web.HTTPNotFound(text="No rated games.")
    with use_language(pages.i18n, _locale(request)):
        title = _("{name}: career rating").format(name=profile.person.name)
        subtitle = texts.place_line(profile)
        axis = _("rated games")
        point = decimal_point()
    values = [p.rating for p in profile.history]
    image = await asyncio.to_thread(render_history, title, subtitle, values, point=point,
                                    axis=axis)
    return web.Response(body=image, content_type="image/png",
                        headers={"Cache-Control": "no-cache"})
