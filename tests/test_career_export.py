"""The career rating in /export (bot/reads/export.py): each game's changes in the
protocols, ``ratings-N.csv``, and ``ratings-input-N.json``, which ``python -m scoring
elo`` turns into the bot's own figures; no Telegram id in any file."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta
from pathlib import Path

from bot.db.connection import Database
from bot.db.games import annul_game
from bot.reads.career import CareerService
from bot.reads.export import build_export
from bot.texts.i18n import caller_language
from scoring.model import Result
from tests.handlers.rating_fixtures import CHIEF, ENDED, USER_BASE, add_game
from tests.handlers.test_career import person_of, two_tournaments
from tests.test_export import run_cli


async def files_of(db: Database, tid: int) -> dict[str, bytes]:
    with caller_language():
        return {f.name: f.data for f in await build_export(db, tid)}


async def test_the_export_carries_the_tournaments_share_of_the_career(
    db: Database, tmp_path: Path
) -> None:
    a, b = await two_tournaments(db)
    draw = await add_game(db, b, range(1, 11), round_no=2, result=Result.DRAW,
                          ended_at=ENDED + timedelta(hours=4))
    gone = await add_game(db, b, range(3, 13), round_no=3, ended_at=ENDED + timedelta(hours=5))
    async with db.transaction() as conn:
        await annul_game(conn, gone, annulled_by=CHIEF)
    state = await CareerService(db).current()
    files = await files_of(db, b.tournament_id)
    n = b.tournament_id

    # The rule on the file, from the sums B's players had before its first game, gives
    # each of its games' changes as the bot counted them (A's games all came before).
    document = json.loads(files[f"ratings-input-{n}.json"])
    path = tmp_path / "input.json"
    path.write_text(json.dumps(document), "utf-8")
    done = run_cli("scoring", "elo", str(path))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    rated = [g for g, _c in state.of_tournament(b.tournament_id)]
    assert [g["seq"] for g in document["games"]] == [g.id for g in rated]
    assert len(rated) == 2 and draw in {g.id for g in rated} and gone not in {g.id for g in rated}
    for game, change in zip(rated, (c for _g, c in state.of_tournament(b.tournament_id)),
                            strict=True):
        shown = next(g for g in out["games"] if g["id"] == game.code)
        assert list(shown["changes"].values()) == list(change.changes.values())
    p3 = await person_of(db, b.players[2])
    row = next(r for r in out["players"] if r["player"].endswith(f" #{p3}"))
    assert row["rating"] == state.rating(p3) and row["player"] == f"P3 #{p3}"

    table = list(csv.DictReader(io.StringIO(files[f"ratings-{n}.csv"].decode("utf-8-sig"))))
    mine = next(r for r in table if r["player"] == "P3")
    assert mine["career_name"] == "P3" and mine["rated_games"] == "1"
    assert float(mine["rating_now"]) == round(state.rating(p3), 2)
    before = float(mine["rating_before"])
    assert round(before + float(mine["change"]), 2) == round(state.rating(p3), 2)

    protocols = files[f"protocols-{n}.md"].decode()
    assert "Общий рейтинг (турнир (множители 16 и 12); шанс красных" in protocols
    assert "Общий рейтинг: без изменений (ничья)." in protocols
    for name, data in files.items():  # no player's Telegram account anywhere
        text = data.decode("utf-8", "ignore") if not name.endswith(".xlsx") else ""
        assert not any(str(USER_BASE + k) in text for k in range(1, 13)), name
    assert a
