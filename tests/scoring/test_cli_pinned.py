"""A file without ``stages`` prints byte for byte what it printed before stages (D13:
such a file is one stage, exactly as before). The outputs in ``pinned/`` were written by
the command line as it was then, for the example tournament (docs/examples/) and a few
generated files (``bench/scoring_bench.py``'s generator; one of them breaks rules)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_cli import EXAMPLES, scoring

DATA = Path(__file__).resolve().parent / "pinned"
FILES = {
    "small-tournament": EXAMPLES / "small-tournament.json",
    **{name: DATA / f"{name}.json" for name in ("generated-1", "generated-2", "generated-3")},
    "generated-invalid": DATA / "generated-invalid.json",
}


@pytest.mark.parametrize("output", ["json", "table"])
@pytest.mark.parametrize("name", sorted(FILES))
def test_d13_a_file_without_stages_prints_what_it_printed_before(name: str, output: str) -> None:
    path = FILES[name]
    done = scoring("standings", str(path), "--format", output)
    assert done.stdout == (DATA / f"{name}.{output}.out").read_bytes()
    assert done.stderr == (DATA / f"{name}.{output}.err").read_bytes()
    assert done.returncode == (2 if name.endswith("invalid") else 0)
