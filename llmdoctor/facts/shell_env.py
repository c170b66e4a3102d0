"""Fact "shell_exports": engine variables set in files a systemd service never reads.

`~/.bashrc`, `~/.profile` (of root, of the service's User= and of login users),
`/etc/environment`, `/etc/profile(.d)`, and `/etc/default/NAME` / `/etc/sysconfig/NAME`
when no `EnvironmentFile=` names them. Only engine variables are kept (OLLAMA_*,
VLLM_*, LLAMA_ARG_*, *_VISIBLE_DEVICES): the fact is about settings that never arrive.
"""
from __future__ import annotations

from . import Context, FactUnavailable, provider


@provider("shell_exports")
def shell_exports(ctx: Context, systemd_units=()):
    """tuple[ShellSetting, ...] (llmdoctor.systemd.environ)."""
    from ..systemd.collect import collect_shell_settings

    found = collect_shell_settings(ctx.host, systemd_units)
    if found is None:
        raise FactUnavailable("no shell start-up files in the evidence", quiet=True)
    return found
