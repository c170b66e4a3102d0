"""Validate a Grafana dashboard against Grafana's own dashboard schema, as the Grafana
Foundation SDK (`grafana-foundation-sdk`, generated from Grafana's CUE schema) types it.

No Grafana can be installed here (it is not in Debian's archive, and it would be a
server to start). The SDK is the schema in Python: every dashboard, panel, variable and
Prometheus query field with its type, enum and literal values. A dashboard is valid when
(1) decoding it and encoding it again loses no key and changes no value (a misspelt or
unknown field is dropped by the SDK), and (2) every decoded value has the type the
schema gives it (a variable `type` of "qurey", a string where a number belongs).
"""
from __future__ import annotations

import enum
import json
import typing

# Keys outside the dashboard model proper: `__inputs` is the import envelope Grafana's
# "export for sharing" adds; a query variable's `definition` is the text its editor shows.
NOT_IN_SCHEMA = {"/__inputs", "definition"}


def problems(dashboard: dict) -> list[str]:
    """Every way `dashboard` departs from the schema; empty when it conforms."""
    from grafana_foundation_sdk.cog import encoder, plugins
    from grafana_foundation_sdk.models.dashboard import Dashboard

    plugins.register_default_plugins()
    decoded = Dashboard.from_json(dashboard)
    again = json.loads(json.dumps(decoded, cls=encoder.JSONEncoder))
    found = _round_trip(dashboard, again, "")
    found += _typed(decoded, Dashboard, "")
    return found


def _round_trip(a: typing.Any, b: typing.Any, path: str) -> list[str]:
    if isinstance(a, dict):
        if not isinstance(b, dict):
            return [f"{path}: became {type(b).__name__}"]
        out = []
        for k, v in a.items():
            p = f"{path}/{k}"
            if k not in b:
                if p not in NOT_IN_SCHEMA and k not in NOT_IN_SCHEMA:
                    out.append(f"{p}: not a field of the schema")
            else:
                out += _round_trip(v, b[k], p)
        return out
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return [f"{path}: list changed"]
        return [e for i, (x, y) in enumerate(zip(a, b)) for e in _round_trip(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} became {b!r}"]


def _typed(value: typing.Any, hint: typing.Any, path: str) -> list[str]:
    """Errors where value does not match the schema's type hint."""
    if hint is typing.Any or hint is object:
        return []
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union:
        if value is None:
            return [] if type(None) in args else [f"{path}: missing"]
        kinds = [h for h in args if h is not type(None)]
        decoded_as = [h for h in kinds if isinstance(h, type) and hasattr(h, "from_json") and isinstance(value, h)]
        if decoded_as or len(kinds) == 1:  # one candidate: its own errors say more
            return _typed(value, (decoded_as or kinds)[0], path)
        tries = [_typed(value, h, path) for h in kinds]
        return [] if any(not t for t in tries) else [f"{path}: {value!r} is none of {hint}"]
    if origin is typing.Literal:
        return [] if value in args else [f"{path}: {value!r} not one of {args}"]
    if origin in (list, tuple):
        if not isinstance(value, list):
            return [f"{path}: {value!r} is not a list"]
        return [e for i, v in enumerate(value) for e in _typed(v, args[0] if args else typing.Any, f"{path}[{i}]")]
    if origin is dict:
        return [] if isinstance(value, dict) else [f"{path}: {value!r} is not an object"]
    if hint is type(None):
        return [] if value is None else [f"{path}: {value!r} is not null"]
    if isinstance(hint, type):
        if issubclass(hint, enum.Enum):
            ok = isinstance(value, hint) or value in {e.value for e in hint}
            return [] if ok else [f"{path}: {value!r} not one of {[e.value for e in hint]}"]
        if hint is float:
            return [] if isinstance(value, (int, float)) and not isinstance(value, bool) else [f"{path}: {value!r} is not a number"]
        if hint is int:
            return [] if isinstance(value, int) and not isinstance(value, bool) else [f"{path}: {value!r} is not an integer"]
        if hint in (str, bool):
            return [] if isinstance(value, hint) else [f"{path}: {value!r} is not {hint.__name__}"]
        if hasattr(hint, "from_json") or hasattr(type(value), "from_json"):
            if not isinstance(value, hint):
                return [f"{path}: {type(value).__name__} where the schema has {hint.__name__}"]
            hints = typing.get_type_hints(type(value))  # the decoded kind: a Prometheus query, not any query
            return [e for name, h in hints.items() for e in _typed(getattr(value, name, None), h, f"{path}/{name}")]
        return [] if isinstance(value, hint) else [f"{path}: {value!r} is not {hint.__name__}"]
    return []
