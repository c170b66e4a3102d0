"""Fact "declared_settings": engine variables as the user wrote them, in whatever form.

An evidence directory built from a ticket holds the line the user believes configures the
server - a startup script, an export, a compose file, a `setx` in a console transcript, a
hand-made list of variables (host.kept("settings") names them). knowledge/env_forms.py reads each
line for its form (does it reach the server at all?) and for lines that assign nothing.
Unit files and drop-ins are not read here: the systemd collectors compare those with what
systemd loaded.
"""
from __future__ import annotations

from llmdoctor.hosts.base import HostError
from llmdoctor.facts import Context, FactUnavailable, provider
from llmdoctor.model import Record, record



@record
class DeclaredSettings(Record):
    """The engine variables as written in the recorded files, and the scripts that start a server.
    (Plain, only ever read: a frozen dataclass costs ~1 ms of every run's start to define.)"""

    assignments: tuple  # knowledge.env_forms.Assignment
    launches: dict  # source -> the line in it that starts the server (a script)

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
    names = host.kept("settings")  # (the files that can hold such lines: a live host keeps none)
    if not names and not host.kept("dropins"):
        raise FactUnavailable("no settings written by hand in the evidence" if host.partial else
                              "settings as written are read from recorded evidence files", quiet=True)

    def text_of(name: str) -> str | None:
        try:
            return host.read(name, 1024 * 1024).decode("utf-8", "replace")
        except (OSError, HostError):
            return None

    found, launches = [], {}
    if not host.kept("units"):
        # drop-ins with no unit to compare them with (the systemd collectors need one): read alone
        for name in host.kept("dropins"):
            text = text_of(name)
            if text is not None:
                from llmdoctor.knowledge.env_forms import unit_file_assignments  # (with a file to read: start-up time)

                found += unit_file_assignments(text, name)
    listings, exports = host.kept("listing"), host.kept("export")
    for name in names:
        text = text_of(name)
        if text is None:
            continue
        if name in listings and _systemctl_show(text):
            continue  # systemd's own view: the systemd collectors read it
        if name in listings and _inspect(text):
            continue  # docker inspect pasted as the listing: the container fact reads it
        from llmdoctor.knowledge.env_forms import assignments_in, launches_engine  # (with a file to read)

        items = assignments_in(text, name, listing=name in listings)
        if name in exports:  # "the shell line a user believed configured the server"
            from dataclasses import replace

            items = [replace(a, form="export") if a.form in ("shell", "listing") else a for a in items]
        found += items
        launch = launches_engine(text)
        if launch:
            launches[name] = launch
    if not found:
        raise FactUnavailable("no settings written by hand in the evidence", quiet=True)
    return DeclaredSettings(tuple(found), launches)
