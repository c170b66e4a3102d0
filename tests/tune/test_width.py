"""`plan` and `tune` laid out at the terminal's width (--width, $COLUMNS): prose wraps under its
indent, the drop-in and the commands break with a trailing backslash (systemd and the shell both
join such lines: systemd.syntax(7) "Lines ending in a backslash are concatenated"), a diff line and
a single word longer than the width (a path) stay whole."""
from __future__ import annotations

import re

import pytest

from tests.tune.conftest import FIX

PLAN = ("plan", "--hf-config", str(FIX / "qwen3-8b.config.json"), "--gpu-memory", "24GB", "--weights", "16GB",
        "--users", "20", "--turn-seconds", "12", "--seconds-between-turns", "90", "--context", "8192")
TUNE_SEED = ("--users", "20", "--turn-seconds", "12", "--seconds-between-turns", "90", "--gpu-memory", "24GB")


def over(out: str, width: int) -> list[str]:
    """Lines past the width that are not a diff line or one unbreakable word (after the indent)."""
    return [line for line in out.splitlines() if len(line) > width
            and not re.match(r"^    [-+@ ]", line) and len(line.strip().split()) > 1]


@pytest.mark.parametrize("width", [60, 120])
def test_plan_fits_the_width(cli, width):
    code, out, err = cli(*PLAN, "--width", str(width))
    assert code == 0, err
    assert not over(out, width), over(out, width)
    assert all(len(line) <= width for line in out.splitlines())  # plan has no unbreakable word this long
    bar = next(line for line in out.splitlines() if line.startswith("  ["))
    assert len(bar) <= width and bar.endswith("]")
    flat = " ".join(out.split())
    assert "OLLAMA_NUM_PARALLEL=5 OLLAMA_CONTEXT_LENGTH=8192 OLLAMA_MAX_QUEUE=20" in flat  # the words all there


def test_plan_width_0_never_wraps(cli):
    code, out, _ = cli(*PLAN, "--width", "0")
    assert code == 0 and max(len(line) for line in out.splitlines()) > 60
    assert "OLLAMA_NUM_PARALLEL=5 OLLAMA_CONTEXT_LENGTH=8192 OLLAMA_MAX_QUEUE=20" in out


@pytest.mark.parametrize("width", [60, 120])
def test_tune_proposal_and_drop_in_fit_the_width(cli, fake_ollama, tmp_path, width):
    code, out, err = cli("tune", "ollama", "--port", str(fake_ollama), "--root", str(tmp_path), *TUNE_SEED,
                         "--width", str(width))
    assert code == 0, err
    assert not over(out, width), over(out, width)
    lines = out.splitlines()
    assert "OLLAMA_NUM_PARALLEL" in out and "Dry run: nothing was changed" in " ".join(out.split())
    # a drop-in or command line that had to break ends in a backslash, and its next line goes on under it
    for i, line in enumerate(lines):
        if line.startswith("    ") and line.endswith(" \\"):
            assert lines[i + 1].startswith("      "), lines[i:i + 2]
    joined = re.sub(r" \\\n\s+", " ", dropin_of(out))  # what systemd reads
    code, wide, _ = cli("tune", "ollama", "--port", str(fake_ollama), "--root", str(tmp_path), *TUNE_SEED,
                        "--width", "0")
    assert joined == dropin_of(wide) and "OLLAMA_NUM_PARALLEL=" in joined  # the same once systemd joins it


def dropin_of(out: str) -> str:
    """The drop-in preview: the indented lines after the "Drop-in PATH:" heading (wrapped or not)."""
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Drop-in"))
    at = lines.index("", at) + 1
    body = []
    for line in lines[at:]:
        if not line.startswith("    "):
            break
        body.append(line[4:])
    return "\n".join(body)
