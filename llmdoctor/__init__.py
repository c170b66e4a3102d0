"""llmdoctor: find why a self-hosted LLM server gets slow, prove it, and fix it."""
import os as _os

__version__ = "0.1.0"

# The built-in checks live at the top of the repository (checks/) and install as the package
# llmdoctor.checks (pyproject.toml's package-dir). Run from a checkout, the same import name
# finds them there.
_here = _os.path.dirname(__file__)
if not _os.path.isfile(_os.path.join(_here, "checks", "__init__.py")) \
        and _os.path.isfile(_os.path.join(_os.path.dirname(_here), "checks", "__init__.py")):
    __path__.append(_os.path.dirname(_here))  # noqa: F821 (a package's own __path__)

# Allocations between two passes of the cyclic garbage collector in a command-line run.
# Python's default (700) makes ~40 passes while a diagnosis imports and sets up (~8 ms, a
# tenth of its start-up, re-scanning objects that all live on); 50,000 makes none there and
# still bounds what waits to be collected to a few MB. The exporter, which runs for days,
# keeps the default (its footprint is measured by bench/exporter_footprint.py).
GC_ALLOCATIONS = 50_000
LONG_RUNNING = ("exporter",)


def collect_garbage_less(argv: list[str]) -> None:
    """Fewer cyclic-collector passes for this command-line process (not for a library's host)."""
    if len(argv) > 1 and argv[1] in LONG_RUNNING:
        return
    global _frozen_at_exit
    import gc

    gc.set_threshold(GC_ALLOCATIONS, *gc.get_threshold()[1:])
    if not _frozen_at_exit:
        import atexit

        # Registered before any other exit handler, so run after all of them: what lives then
        # lives until the process ends, and the interpreter's last collections need not scan
        # it. Scanning a diagnosis's objects (modules, classes, facts) was ~20 ms of its exit.
        atexit.register(gc.freeze)
        _frozen_at_exit = True


_frozen_at_exit = False
