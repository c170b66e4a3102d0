"""A container's own log (`docker logs`) as a log source.

Why a source of its own: a container engine writes no journal and usually no log file; its
log is what the CLI replays. The lines are read once per run, bounded by the host's
`--tail`, and given to the scanners the way a pasted `docker logs -t` is: the RFC 3339
timestamps and any json-file wrapping taken off by the same paste repair.
"""
from __future__ import annotations

from typing import Iterator

from llmdoctor.hosts.base import HostError


class ContainerLogSource:
    def __init__(self, host, engine: str | None, since_seconds: float | None) -> None:
        self.host = host
        self.engine = engine
        self.since_seconds = since_seconds
        self.name = f"{host.cli} logs {host.target.name}"
        self.error: str | None = None
        self.prefixes: tuple[str, ...] = ()
        self.idents: tuple[str, ...] = ()
        self._text: str | None = None

    def probe(self) -> str | None:
        """Why the log cannot be read ("" / None when it can)."""
        self._fetch()
        return self.error

    def _fetch(self) -> str:
        if self._text is None:
            from llmdoctor.knowledge.pasted import repair_log

            try:
                raw = self.host.logs(self.since_seconds)
            except HostError as e:
                self.error, raw = str(e), ""
            repaired = repair_log(raw) if raw else None
            self._text = repaired.text if repaired is not None else ""
            if repaired is not None:
                self.prefixes, self.idents = repaired.prefixes, repaired.idents
        return self._text

    def blocks(self) -> Iterator[str]:
        text = self._fetch()
        if text:
            yield text

    def lines(self) -> Iterator[str]:
        yield from self._fetch().splitlines()
