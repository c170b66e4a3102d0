"""The parts of a report most runs leave empty: the merged changes ("What to change", from
findings whose fix is a setting) and the figures a monitor graphs (the probe's, nagios'
performance data). Re-exported by llmdoctor.model, which imports this module when one of
them is first asked for: each frozen dataclass costs ~1 ms of start-up to define."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Change:
    """The one change to make at one place (a unit's drop-in, an environment, a server's
    command line): every finding's setting there merged, conflicts resolved."""

    place: str  # "systemd ollama.service", "llama-server command line", ...
    settings: tuple[tuple[str, str], ...]
    commands: tuple[str, ...] = ()
    config: str = ""  # the file to write, when the change is a file
    checks: tuple[str, ...] = ()  # the findings merged into it
    notes: tuple[str, ...] = ()  # conflicts and how they were resolved
    held_back: tuple[str, ...] = ()  # settings asked for but not changed yet, and why


@dataclass(frozen=True)
class Figure:
    """A measured number a monitor can graph (performance data), with the levels at which
    llmdoctor itself would warn or call it critical, when it has such levels."""

    name: str  # a label: letters, digits and "_" only
    value: float
    unit: str = ""  # "s", "%", "" (a count)
    warn: float | None = None
    crit: float | None = None
