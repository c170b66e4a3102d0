"""`python -m llmdoctor.plugins.reindex`: write plugins/builtin_index.py from the built-in check
modules (after adding a check or changing one's id, cause, purpose, parameters or trigger)."""
from __future__ import annotations

from llmdoctor.plugins.deferred import INDEX, index_text
from llmdoctor.plugins.loader import load_checks

if __name__ == "__main__":
    INDEX.write_text(index_text(load_checks(site_dir=None, entry_points=False)[0]))
    print(f"wrote {INDEX}")
