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
    held: tuple[tuple[str, str], ...] = ()  # those settings as values: (name, value asked)


@dataclass(frozen=True)
class Figure:
    """A measured number a monitor can graph (performance data), with the levels at which
    llmdoctor itself would warn or call it critical, when it has such levels."""

    name: str  # a label: letters, digits and "_" only
    value: float
    unit: str = ""  # "s", "%", "" (a count)
    warn: float | None = None
    crit: float | None = None


REMOVE = "\0remove"  # a Setting's value that takes the flag off the command line


@dataclass(frozen=True)
class Setting:
    """One setting a finding wants, by its canonical name: an engine variable (`OLLAMA_NUM_PARALLEL`)
    or a server flag as llama-server, vLLM or SGLang spell it (`-np`, `--max-num-seqs`)."""

    name: str
    value: object = ""  # "" or True: a bare switch; REMOVE: take the flag off
    why: str = ""


@dataclass(frozen=True)
class Remedy:
    """What a finding asks to change, as values: judge/fixes.py alone renders it for the place the
    server runs (a drop-in, `setx`, compose, a pod's env or args, a command line), and
    judge/remedy.py merges the settings of every finding without reading text back.

    `server` says where the settings live: "" for engine variables in the service's environment
    (`where`: the deployment, as knowledge.ollama.deployment names it; `unit`: its systemd unit),
    else the server whose command line takes them ("llama-server", "vllm serve", "vllm python",
    "SGLang"), started with `model` when known."""

    settings: tuple[Setting, ...] = ()
    server: str = ""
    where: object = None
    unit: str = ""
    model: str = ""
    argv: tuple[str, ...] = ()  # the running command line the flags are set in, when known
    # how a unit's drop-in is applied: "restart" (mkdir, then daemon-reload and restart), "reload" (daemon-reload
    # and restart), "edit" (`systemctl edit` opens it), "edit+reload" (`systemctl edit`, daemon-reload and restart)
    restart: str = "restart"
    before: tuple[str, ...] = ()  # commands to run before the change (look first)
    verify: tuple[str, ...] = ()  # commands to run after it (did it take?)
    alternatives: tuple["Remedy", ...] = ()  # other ways, shown after it, never merged
    notes: tuple[str, ...] = ()  # what is not a setting (a comment after the command line)

    def values(self) -> dict[str, str]:
        """The settings as the merge compares them: name -> value as text ("" a bare switch)."""
        return {s.name: ("" if s.value is True else str(s.value)) for s in self.settings}
