"""The HTML report in a real headless Chromium (Debian's `chromium`), offline: every host
name resolves to nothing (`--host-resolver-rules`), the page logs no console message at
all (a blocked fetch, a CSP violation or a script error would each log one), the DOM it
built holds both charts, and its screenshot shows them (the charts' own colours cover
thousands of pixels). Skips where chromium is not installed; tests/run.sh installs it."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.render.probe_fixtures import EVIDENCE
from tests.render.test_html import llmdoctor

pytest.importorskip("matplotlib", reason="matplotlib is not installed (the html extra)")
PIL = pytest.importorskip("PIL.Image", reason="Pillow is not installed (it comes with matplotlib)")

pytestmark = pytest.mark.real
BROWSER = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
# The charts' fills (render/charts.py): decoding blue and prefill orange.
DECODING_RGB, PREFILL_RGB = (0x1F, 0x77, 0xB4), (0xFF, 0x7F, 0x0E)


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    if BROWSER is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    argv = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-extensions", "--disable-background-networking", "--disable-sync",
            '--host-resolver-rules=MAP * ~NOTFOUND', "--no-proxy-server", "--enable-logging=stderr", "--v=0",
            f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,2600", *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=90, cwd=tmp_path,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})


@pytest.fixture(scope="module")
def page_file(tmp_path_factory) -> Path:
    p = llmdoctor("diagnose", "--evidence", str(EVIDENCE / "probe-llamacpp-one-slot"), "--format", "html")
    assert p.returncode == 1, p.stderr
    path = tmp_path_factory.mktemp("html") / "report.html"
    path.write_text(p.stdout)
    return path


def _console(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def test_loads_offline_without_a_console_message_and_builds_the_charts(page_file, tmp_path):
    p = _chromium(tmp_path, "--dump-dom", page_file.as_uri())
    assert p.returncode == 0, p.stderr[-3000:]
    assert _console(p.stderr) == []
    dom = p.stdout
    assert re.search(r'<figure class="chart timeline" id="timeline-1"><svg[^>]*aria-label="probe timeline"', dom)
    assert re.search(r'<figure class="chart latency" id="latency-1"><svg[^>]*aria-label="probe latency"', dom)
    assert dom.count("<path") > 100  # the charts' bars, axes and text (as paths)
    assert "Requests are served one at a time" in dom


def test_the_console_check_sees_a_page_that_fetches(tmp_path):
    """The check above would catch a fetch: a page that loads a script from elsewhere logs."""
    bad = tmp_path / "bad.html"
    bad.write_text(page_file_html_with_fetch())
    p = _chromium(tmp_path, "--dump-dom", bad.as_uri())
    assert _console(p.stderr), p.stderr[-2000:]


def page_file_html_with_fetch() -> str:
    return ("<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\">"
            "</head><body><script src=\"https://cdn.example.com/chart.js\"></script>x</body></html>")


def test_the_screenshot_shows_the_charts(page_file, tmp_path):
    shot = tmp_path / "shot.png"
    p = _chromium(tmp_path, f"--screenshot={shot}", page_file.as_uri())
    assert p.returncode == 0 and shot.exists(), p.stderr[-3000:]
    assert _console(p.stderr) == []
    with PIL.open(shot) as img:
        rgb = img.convert("RGB")
        assert rgb.size == (1200, 2600)
        colours = rgb.getcolors(maxcolors=1 << 20)
    counts = {c: n for n, c in colours}
    assert len(counts) > 200  # text, axes, bars, anti-aliasing: not a blank or flat page

    def near(target, tol=6):
        return sum(n for c, n in counts.items() if all(abs(a - b) <= tol for a, b in zip(c, target)))

    assert near(DECODING_RGB) > 2000, "no decoding bars (blue) in the screenshot"
    assert near(PREFILL_RGB) > 2000, "no prefill bars or TTFT bars (orange) in the screenshot"
