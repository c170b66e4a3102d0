"""Fact "declared_settings": engine variables as the user wrote them, in whatever form.

An evidence directory built from a ticket holds the line the user believes configures the
server - a startup script in cmdline.txt, an export in shell_export.txt, a compose file, a
`setx` in a console transcript, a hand-made env.txt list. knowledge/env_forms.py reads each
line for its form (does it reach the server at all?) and for lines that assign nothing.
Unit files and drop-ins are not read here: the systemd collectors compare those with what
systemd loaded.
"""
from __future__ import annotations

from llmdoctor.hosts.base import HostError
from llmdoctor.facts import Context, FactUnavailable, provider
from llmdoctor.model import Record

# Files that can hold such lines, besides any unknown *.txt (a compose file, a console session).
SOURCES = ("cmdline.txt", "env.txt", "shell_export.txt", "compose.yaml", "compose.yml", "docker-compose.yml",
           "docker-compose.yaml")
NOT_SETTINGS = frozenset({"ollama_ps.txt", "vmstat.txt", "meminfo.txt", "nvidia_smi.txt", "systemctl_cat.txt",
                          "client_errors.txt", "libdir_listing.txt", "bench.txt"})


class DeclaredSettings(Record):
    """The engine variables as written in the recorded files, and the scripts that start a server.
    (Plain, only ever read: a frozen dataclass costs ~1 ms of every run's start to define.)"""

    __slots__ = ("assignments", "launches")

    def __init__(self, assignments: tuple, launches: dict) -> None:
        self.assignments = assignments  # knowledge.env_forms.Assignment
        self.launches = launches  # source -> the line in it that starts the server (a script)

    def reaches_server(self, a) -> bool:
        """The value arrives in the server's environment (as written, at its next start)."""
        if a.problem is not None or a.value is None:
            return False
        if a.form in ("export", "shell"):
            return a.form == "export" and a.source in self.launches
        return not a.session_only

    def summary(self) -> list[tuple[str, str]]:
        shown = ", ".join(f"{a.name} ({a.form}, {a.source})" for a in self.assignments[:6])
        return [("Settings as given", shown)] if shown else []


def _systemctl_show(text: str) -> bool:
    import re

    return bool(re.search(r"^(?:Environment|MainPID|ExecStart|FragmentPath|NeedDaemonReload|User)=", text, re.M))


def _inspect(text: str) -> bool:
    from llmdoctor.knowledge.containers.looks import looks_like_inspect

    return looks_like_inspect(text)


@provider("declared_settings")
def declared_settings(ctx: Context) -> DeclaredSettings:
    host = ctx.host
    if not host.recorded:
        raise FactUnavailable("settings as written are read from recorded evidence files", quiet=True)

    def text_of(name: str) -> str | None:
        try:
            return host.read(name, 1024 * 1024).decode("utf-8", "replace")
        except (OSError, HostError):
            return None

    found, launches = [], {}
    if not any(host.exists(n) for n in ("unit.service", "systemctl_cat.txt", "files")):
        # drop-ins with no unit to compare them with (the systemd collectors need one): read alone
        for name in [f for f in host.files() if f.startswith("dropins/")]:
            text = text_of(name)
            if text is not None:
                from llmdoctor.knowledge.env_forms import unit_file_assignments  # (with a file to read: start-up time)

                found += unit_file_assignments(text, name)
    names = [n for n in SOURCES if host.exists(n)]
    names += [n for n in host.recorded_logs() if n.endswith(".txt") and n not in NOT_SETTINGS and n not in names]
    for name in names:
        text = text_of(name)
        if text is None:
            continue
        if name == "env.txt" and _systemctl_show(text):
            continue  # systemd's own view: the systemd collectors read it
        if name == "env.txt" and _inspect(text):
            continue  # docker inspect pasted as env.txt: the container fact reads it
        from llmdoctor.knowledge.env_forms import assignments_in, launches_engine  # (with a file to read)

        items = assignments_in(text, name, listing=name == "env.txt")
        if name == "shell_export.txt":  # "the shell line a user believed configured the server"
            from dataclasses import replace

            items = [replace(a, form="export") if a.form in ("shell", "listing") else a for a in items]
        found += items
        launch = launches_engine(text)
        if launch:
            launches[name] = launch
    if not found:
        raise FactUnavailable("no settings written by hand in the evidence", quiet=True)
    return DeclaredSettings(tuple(found), launches)
