"""Fact "shell_exports": engine variables set in files a systemd service never reads.

`~/.bashrc`, `~/.profile` (of root, of the service's User= and of login users),
`/etc/environment`, `/etc/profile(.d)`, and `/etc/default/NAME` / `/etc/sysconfig/NAME`
when no `EnvironmentFile=` names them. Only engine variables are kept (OLLAMA_*,
VLLM_*, LLAMA_ARG_*, *_VISIBLE_DEVICES): the fact is about settings that never arrive.
"""
from __future__ import annotations

from llmdoctor.facts import Context, FactUnavailable, provider

@provider("shell_exports")
def shell_exports(ctx: Context, systemd_units=()):
    """tuple[ShellSetting, ...] (llmdoctor.knowledge.systemd.environ)."""
    host = ctx.host
    if host.partial and not host.kept("units"):
        # A recording answers for a host file only from its files/ copies or from the
        # `systemctl cat` text: with neither, collect_shell_settings would read nothing and
        # say so. Said here so the collector stays unimported (start-up time).
        raise FactUnavailable("no shell start-up files in the evidence", quiet=True)
    from llmdoctor.facts.systemd_files import collect_shell_settings

    found = collect_shell_settings(ctx.host, systemd_units)
    if found is None:
        raise FactUnavailable("no shell start-up files in the evidence", quiet=True)
    return found
