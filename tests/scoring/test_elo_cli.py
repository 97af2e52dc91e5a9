"""``python -m scoring elo FILE`` (docs/formats.md#rating): the real command line, as a
subprocess and through ``scoring.cli.main``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import EloGame, EloKind, EloSeat, EloSums, replay_elo
from scoring.cli import main
from scoring.model import Result, Role

ROOT = Path(__file__).resolve().parents[2]
CONTRACT_EXAMPLE = {
    "initial": {"Ann": {"red": 52.97, "black": -5.76}},
    "games": [
        {
            "id": "R1-T1",
            "kind": "tournament",
            "players": [{"player": "Ann", "role": "civilian"}, {"player": "Bob", "role": "don"}],
            "winner": "red",
        }
    ],
}
TABLE = ["civilian"] * 6 + ["sheriff", "mafia", "mafia", "don"]


def scoring(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "scoring", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        timeout=60,
        check=False,
    )


def table(
    game_id: str, players: list[str], winner: str | None = "red", **more: Any
) -> dict[str, Any]:
    seated = [{"player": p, "role": r} for p, r in zip(players, TABLE, strict=False)]
    return {"id": game_id, "kind": "tournament", "players": seated, "winner": winner} | more


def run(capsys: pytest.CaptureFixture[str], path: Path, data: Any) -> tuple[int, str, str]:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    code = main(["elo", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_contracts_example_through_the_command() -> None:
    # The contract's sample output is only its shape (red_odds 0.5, +8.0 / -6.0, Ann
    # 1055.33): with Ann's initial sums and two players (factors halved) the rule gives
    # red_odds 0.5756..., Ann +3.3948..., Bob -2.5461... (tests/scoring/test_elo.py
    # works it out).
    done = scoring("elo", "-", stdin=json.dumps(CONTRACT_EXAMPLE).encode())
    assert done.returncode == 0 and done.stderr == b""
    out = json.loads(done.stdout)
    assert list(out) == ["games", "players"]
    [row] = out["games"]
    assert list(row) == ["id", "red_odds", "changes"] and row["id"] == "R1-T1"
    assert abs(row["red_odds"] - 0.5756447676341096587) < 1e-9
    assert list(row["changes"]) == ["Ann", "Bob"]
    assert abs(row["changes"]["Ann"] - 3.394841858927122731) < 1e-9
    assert abs(row["changes"]["Bob"] + 2.546131394195342048) < 1e-9
    ann, bob = out["players"]
    assert list(ann) == ["player", "rating", "red", "black", "games"]
    assert ann["player"] == "Ann" and ann["games"] == 1 and ann["black"] == -5.76
    assert abs(ann["rating"] - 1050.604841858927123) < 1e-9
    assert abs(ann["red"] - 56.36484185892712273) < 1e-9
    assert bob["player"] == "Bob" and bob["games"] == 1 and bob["red"] == 0.0
    assert abs(bob["rating"] - 997.4538686058046580) < 1e-9


def test_players_by_rating_then_key_games_counting_rated_ones_only(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    players = [f"P{n}" for n in range(10)]
    data = {
        "initial": {"Zed": {"red": 0, "black": 0}, "Amy": {"red": 1.5, "black": -1.5}},
        "games": [
            table("G1", players),  # 0.5: P0-P6 +8, P7-P9 -6
            table("G2", players, None),  # not rated: a draw
            table("G3", players[:9], "black", rated=False, note="ignored"),
            table("G4", ["New"], None),  # met in an unrated game only
        ],
    }
    code, out, err = run(capsys, tmp_path / "f.json", data)
    assert code == 0 and err == ""
    got = json.loads(out)
    assert [g["changes"] for g in got["games"][1:3]] == [
        dict.fromkeys(players, 0.0),
        dict.fromkeys(players[:9], 0.0),
    ]
    want = [
        *[(p, 1008.0, 1) for p in players[:7]],
        ("Amy", 1000.0, 0),  # equal ratings by key: Amy, New, Zed
        ("New", 1000.0, 0),
        ("Zed", 1000.0, 0),
        *[(p, 994.0, 1) for p in players[7:]],
    ]
    assert [(p["player"], p["rating"], p["games"]) for p in got["players"]] == want
    assert got["players"][7]["red"] == 1.5 and got["players"][9]["red"] == 0.0


def one(**fields: Any) -> dict[str, Any]:
    """A file of one game, G1 (Ann the don), with ``fields`` given instead."""
    return {"games": [table("G1", ["Ann"]) | fields]}


ELEVEN = [{"player": f"P{n}", "role": "don"} for n in range(11)]
BAD_FILES: list[tuple[Any, str]] = [
    ("{not json", "f.json: not valid JSON: "),
    ([], "f.json: a rating file must be a JSON object"),
    ({"initial": {}}, "f.json: games: required field is missing"),
    ({"games": {}}, "f.json: games: must be a list of games"),
    ({"initial": [], "games": []}, "f.json: initial: must be an object"),
    ({"initial": {"A": {"red": 1}}, "games": []}, "initial.A.black: required field is missing"),
    ({"initial": {"A": {"red": "1", "black": 0}}, "games": []}, "initial.A.red: must be a finite"),
    ({"initial": {"A": {"red": True, "black": 0}}, "games": []}, "initial.A.red: must be a finite"),
    ({"games": [[]]}, "games[0]: a game must be a JSON object"),
    ({"games": [{"kind": "club"}]}, "games[0].id: required field is missing"),
    ({"games": [{"id": " "}]}, "games[0].id: must be a non-empty string"),
    (
        one(kind="cup"),
        'games[0].kind (game G1): unknown kind "cup"; one of club, tournament, elite',
    ),
    (one(kind=None), "games[0].kind (game G1): unknown kind null"),
    (
        one(winner="draw"),
        'games[0].winner (game G1): unknown winner "draw"; one of red, black, null',
    ),
    (
        {"games": [{"id": "G1", "kind": "club", "players": []}]},
        "games[0].winner (game G1): required",
    ),
    (one(players=[]), "games[0].players (game G1): no player; a game has 1 to 10"),
    (one(players=ELEVEN), "games[0].players (game G1): 11 players; a game has 1 to 10"),
    (one(players="Ann"), "games[0].players (game G1): must be a list of players"),
    (
        {"games": [table("G1", ["A"]), table("G2", ["B", "C", "B"])]},
        "games[1].players[2].player (game G2): B plays twice in the game (players[0] too)",
    ),
    (
        one(players=[{"player": "Ann", "role": "doctor"}]),
        'games[0].players[0].role (game G1): unknown role "doctor"; one of civilian, sheriff, ',
    ),
    (one(players=[{"role": "don"}]), "games[0].players[0].player (game G1): required field is"),
    (
        one(players=[{"player": 7, "role": "don"}]),
        "players[0].player (game G1): must be a non-empty",
    ),
    (one(players=["Ann"]), "games[0].players[0] (game G1): a player must be an object"),
    (one(rated="yes"), 'games[0].rated (game G1): must be true or false, not "yes"'),
]


@pytest.mark.parametrize(("data", "line"), BAD_FILES)
def test_a_file_the_format_does_not_allow_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data: Any, line: str
) -> None:
    code, out, err = run(capsys, tmp_path / "f.json", data)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and line in err, err
    assert err.startswith(str(tmp_path / "f.json") + ": ")


def test_errors_through_the_subprocess(tmp_path: Path) -> None:
    bad = {"games": [table("R2-T3", ["Ann", "Bob"]) | {"kind": "friendly"}]}
    done = scoring("elo", "-", stdin=json.dumps(bad).encode())
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode() == (
        '<stdin>: games[0].kind (game R2-T3): unknown kind "friendly"; '
        "one of club, tournament, elite\n"
    )
    done = scoring("elo", str(tmp_path / "missing.json"))
    assert done.returncode == 2 and done.stdout == b"" and done.stderr.count(b"\n") == 1
    assert scoring("elo").returncode == 2  # no FILE: argparse's usage error


def test_help_names_the_file_the_output_and_the_exit_status() -> None:
    done = scoring("--help")
    assert done.returncode == 0 and b"standings" in done.stdout and b"elo" in done.stdout
    done = scoring("elo", "--help")
    assert done.returncode == 0
    for word in (b"FILE", b"stdin", b"initial", b"red_odds", b"exits with 2", b"club"):
        assert word in done.stdout


# The JSON round trip over generated files.
POOL = [f"N{n:02d}" for n in range(12)]
sums_values = st.floats(-1000, 1000, allow_nan=False, allow_infinity=False)
ROLES = [role.value for role in Role]


@st.composite
def files(draw: st.DrawFn) -> dict[str, Any]:
    initial = draw(
        st.dictionaries(
            st.sampled_from(POOL), st.fixed_dictionaries({"red": sums_values, "black": sums_values})
        )
    )
    games = []
    for number in range(draw(st.integers(0, 12))):
        players = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=10, unique=True))
        game: dict[str, Any] = {
            "id": f"G{number}",
            "kind": draw(st.sampled_from([kind.value for kind in EloKind])),
            "players": [{"player": p, "role": draw(st.sampled_from(ROLES))} for p in players],
            "winner": draw(st.sampled_from(["red", "black", None])),
        }
        rated = draw(st.sampled_from([True, False, None]))
        if rated is not None:
            game["rated"] = rated
        games.append(game)
    return {"initial": initial, "games": games}


def expected(data: dict[str, Any]) -> tuple[list[Any], dict[str, EloSums]]:
    games = [
        EloGame(
            g["id"],
            EloKind(g["kind"]),
            tuple(EloSeat(p["player"], Role(p["role"])) for p in g["players"]),
            None if g["winner"] is None else Result(g["winner"]),
            g.get("rated", True),
        )
        for g in data["games"]
    ]
    initial = {p: EloSums(s["red"], s["black"]) for p, s in data["initial"].items()}
    done = replay_elo(games, initial)
    return done.games, done.sums


@settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(files(), st.data())
def test_the_output_round_trips_through_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data: dict[str, Any], more: st.DataObject
) -> None:
    code, out, err = run(capsys, tmp_path / "f.json", data)
    assert code == 0 and err == ""
    got = json.loads(out)
    changes, sums = expected(data)
    # Every figure read back is the very float computed (not rounded on the way).
    assert [(g["id"], g["red_odds"], g["changes"]) for g in got["games"]] == [
        (c.id, c.red_odds, c.changes) for c in changes
    ]
    met = set(data["initial"]) | {p["player"] for g in data["games"] for p in g["players"]}
    assert [p["player"] for p in got["players"]] == sorted(
        met, key=lambda p: (-sums.get(p, EloSums()).rating, p)
    )
    for row in got["players"]:
        mine = sums.get(row["player"], EloSums())
        assert (row["red"], row["black"], row["rating"]) == (mine.red, mine.black, mine.rating)
        assert row["games"] == sum(
            1
            for g, c in zip(data["games"], changes, strict=True)
            if c.counts and any(p["player"] == row["player"] for p in g["players"])
        )
    # The output's sums as the next file's initial: the file cut at any game and
    # continued from the first part's output ends where the whole file does.
    cut = more.draw(st.integers(0, len(data["games"])))
    code, first, _ = run(capsys, tmp_path / "a.json", data | {"games": data["games"][:cut]})
    carried = {
        p["player"]: {"red": p["red"], "black": p["black"]} for p in json.loads(first)["players"]
    }
    code, rest, _ = run(
        capsys, tmp_path / "b.json", {"initial": carried, "games": data["games"][cut:]}
    )
    assert code == 0
    assert json.loads(rest)["games"] == got["games"][cut:]
    assert [sums_of(p) for p in json.loads(rest)["players"]] == [sums_of(p) for p in got["players"]]


def sums_of(row: dict[str, Any]) -> tuple[str, float, float, float]:
    return row["player"], row["rating"], row["red"], row["black"]


def test_the_documented_example_is_what_the_command_prints(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "formats.md").read_text("utf-8")
    section = text[text.index('<a id="rating"></a>') :]
    given, printed = (
        json.loads(block) for block in re.findall(r"```json\n(.*?)```", section, re.S)
    )
    (tmp_path / "career.json").write_text(json.dumps(given), "utf-8")
    done = scoring("elo", str(tmp_path / "career.json"))
    assert done.returncode == 0 and done.stderr == b""
    assert json.loads(done.stdout) == printed
    # The documented error line, from a file that has it.
    [line] = re.findall(r"```\n(career\.json: .*)\n```", section)
    games = [table(f"R1-T{n}", ["Ann"]) for n in range(1, 4)]
    players = [f"P{n}" for n in range(10)]
    games.append(table("R2-T4", players))
    games[3]["players"][7]["role"] = "doctor"
    (tmp_path / "career.json").write_text(json.dumps({"games": games}), "utf-8")
    done = scoring("elo", str(tmp_path / "career.json"))
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode() == str(tmp_path / line) + "\n"
