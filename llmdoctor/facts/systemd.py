"""Fact "systemd_units": per engine unit, what the files say, what systemd loaded, what the process got.

The work is in llmdoctor.facts.systemd_files, imported only when there is a unit to examine.
"""
from __future__ import annotations

from llmdoctor.facts import Context, FactUnavailable, provider


@provider("systemd_units")
def systemd_units(ctx: Context, engines=()):
    """tuple[UnitState, ...] (llmdoctor.knowledge.systemd.units), one per engine unit."""
    if not ctx.units and not any(getattr(e, "unit", None) for e in engines or ()):
        # what engine_units() would find; said here so the collector stays unimported (start-up time)
        raise FactUnavailable("no engine runs as a systemd unit", quiet=True)
    from llmdoctor.facts.systemd_files import collect_unit, engine_units, read_passwd

    units = engine_units(engines, ctx.units)
    if not units:
        raise FactUnavailable("no engine runs as a systemd unit", quiet=True)
    passwd = read_passwd(ctx.host)
    states = tuple(collect_unit(ctx.host, u, kind, passwd) for u, kind in units.items())
    if all(s.fragment_path is None and s.loaded_env is None and s.load_state in (None, "not-found")
           for s in states):
        reasons = "; ".join(n for s in states for n in s.notes[:2])
        raise FactUnavailable(f"no unit file or systemd state for {', '.join(units)} ({reasons})")
    return states
