"""Checks as plugins: the decorator a check is written with, the loader that finds the
built-in, site and entry-point checks, and the runner that calls one with its facts.

A site check needs only `from llmdoctor.plugins import check`.
"""
from llmdoctor.plugins.check import CheckSpec, check
from llmdoctor.plugins.loader import ENTRY_POINT_GROUP, SITE_CHECKS_DIR, builtin_checks_dir, load_checks
from llmdoctor.plugins.runner import CheckOutcome, run_check

__all__ = ["ENTRY_POINT_GROUP", "SITE_CHECKS_DIR", "CheckOutcome", "CheckSpec", "builtin_checks_dir", "check",
           "load_checks", "run_check"]
