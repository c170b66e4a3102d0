"""Capacity planning and `llmdoctor tune ollama`.

plan (pure sizing: memory and workload -> slots, context, cache type, queue) ->
proposal (pure: host facts -> each Ollama setting next to its current value, with the
reason and the arithmetic) -> dropin (render llmdoctor's own systemd drop-in, diff it,
check precedence against the other drop-ins) -> apply (a transaction: back up, write
atomically, verify, reload, restart, confirm; restore on any failure).
"""
