"""The one error a renderer raises for a missing optional library, in a module of its own so
that catching it does not import the charting code (start-up time of every other format)."""
from __future__ import annotations


class HtmlUnavailable(RuntimeError):
    """The charting library is not installed; str() is the one line to show."""
