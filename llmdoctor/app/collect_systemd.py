"""What `llmdoctor collect` should keep so the systemd checks work offline.

`systemctl cat` shows the files systemd has *loaded*; a forgotten daemon-reload is
only visible in the files on disk. So the unit file, every drop-in (also the ones
systemd ignores) and the main process's environment are copied (hosts/bundle.py writes
them under `files/<absolute path>`), which the systemd collectors read back from an
evidence directory in preference to anything else.

The process environment is written one variable per line (the `tr '\\0' '\\n'`
form), after redaction: a NUL-separated text would let a redacted value swallow the
variables after it.
"""
from __future__ import annotations

from typing import Iterable

from llmdoctor.redact import redact_env, redact_text

ENVIRON_LIMIT = 1024 * 1024


def evidence_files(host, states: Iterable, shell_settings: Iterable = ()) -> dict[str, str]:
    """Host path -> redacted text, for the units' files, drop-ins, environments and the
    shell files that set engine variables. Unreadable files are left out."""
    from llmdoctor.facts.systemd_files import read_bytes, read_text
    from llmdoctor.knowledge.systemd.environ import parse_proc_environ

    out: dict[str, str] = {}
    paths: list[str] = []
    for u in states:
        if u.fragment_path:
            paths.append(u.fragment_path)
        paths.extend(u.dropin_paths)
        paths.extend(p.path for p in u.problems if p.kind != "unreadable")
        paths.extend(ref.path for ref in u.environment_files)
        if u.main_pid:
            try:
                env = parse_proc_environ(read_bytes(host, f"/proc/{u.main_pid}/environ", ENVIRON_LIMIT))
            except OSError:
                env = None
            if env is not None:
                out[f"/proc/{u.main_pid}/environ"] = "".join(
                    f"{k}={v}\n" for k, v in redact_env(env).items() if "\n" not in v)
    paths.extend(s.path for s in shell_settings)
    for path in dict.fromkeys(paths):
        try:
            out[path] = redact_text(read_text(host, path))
        except OSError:
            continue
    return out
