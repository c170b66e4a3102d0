"""The README's sample output is what `diagnose` prints for its fixture today, so it cannot
drift. After a deliberate change of the output, `python tests/core/test_readme_sample.py`
writes the new sample into the README."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
FIXTURE = "ollama-keepalive-unload"
WIDTH = 88
BLOCK = re.compile(r"(<!-- sample: diagnose --evidence tests/fixtures/evidence/(?P<dir>[\w.-]+) --width (?P<w>\d+) -->\n```\n)"
                   r"(?P<body>.*?)(```)", re.S)


def rendered() -> str:
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "llmdoctor", "diagnose", "--evidence",
                        str(ROOT / "tests" / "fixtures" / "evidence" / FIXTURE), "--width", str(WIDTH)],
                       capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    assert p.returncode in (0, 1, 2), p.stderr
    return p.stdout


def test_the_readme_sample_is_the_fixture_output():
    m = BLOCK.search(README.read_text())
    assert m and m.group("dir") == FIXTURE and int(m.group("w")) == WIDTH, "the README's sample block is missing"
    assert m.group("body") == rendered(), "the output changed: run `python tests/core/test_readme_sample.py`"


if __name__ == "__main__":
    text = README.read_text()
    new = BLOCK.sub(lambda m: m.group(1) + rendered() + m.group(5), text, count=1)
    README.write_text(new)
    print("README sample", "unchanged" if new == text else "written")
