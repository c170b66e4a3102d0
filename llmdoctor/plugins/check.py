"""The check decorator: a check is its trigger (the engines it is about, the facts it needs)
plus a short body.

A check is a function decorated with `@check(...)`; its parameters name the facts it
reads (facts/catalogue.py lists them, with their types, which the parameters carry as
annotations). It returns or yields `Finding`s and never does I/O. A parameter with a
default is optional: it receives the default when the fact is unavailable. The trigger
decides whether the check runs at all: `engines` (one of them must have been found) and
`needs` (at least one of these facts must be available; by default every parameter
without a default is required).
"""
from __future__ import annotations

from typing import Any, Callable

from llmdoctor.facts import parameters
from llmdoctor.model import Cause

MARK = "__llmdoctor_check__"
ENGINE_KINDS = frozenset({"ollama", "vllm", "llamacpp", "sglang"})


class CheckSpec:
    """A check as the loader and runner see it: its function, the facts it reads, its trigger.
    (A plain class, only ever read and copied through its __dict__ by the loader: defining a
    frozen dataclass costs ~1 ms of every run's start.)"""

    def __init__(self, id: str, cause: Cause, purpose: str, func: Callable[..., Any], params: tuple[str, ...],
                 optional: frozenset[str], origin: str = "built-in", engines: tuple[str, ...] = (),
                 needs: tuple[str, ...] = ()) -> None:
        self.id = id
        self.cause = cause
        self.purpose = purpose
        self.func = func
        self.params = params
        self.optional = optional
        self.origin = origin
        self.engines = engines  # the check runs only where one of these engines was found
        self.needs = needs  # ... and at least one of these facts is available

    def __repr__(self) -> str:
        return f"CheckSpec({self.id!r}, origin={self.origin!r})"


def check(id: str, cause: Cause, purpose: str = "", engines: tuple[str, ...] = (),
          needs: tuple[str, ...] = ()) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a function as a check. `purpose` defaults to the docstring's first line."""
    unknown = set(engines) - ENGINE_KINDS
    if unknown:
        raise ValueError(f"check {id}: unknown engine {sorted(unknown)} (one of {sorted(ENGINE_KINDS)})")

    def mark(func: Callable[..., Any]) -> Callable[..., Any]:
        params, optional = parameters(func)
        doc = (func.__doc__ or "").strip().splitlines()
        missing = [n for n in needs if n not in params]
        if missing:
            raise ValueError(f"check {id}: needs {missing}, which are not parameters of {func.__name__}")
        spec = CheckSpec(
            id=id,
            cause=cause,
            purpose=purpose or (doc[0] if doc else ""),
            func=func,
            params=params,
            optional=optional,
            engines=tuple(engines),
            needs=tuple(needs),
        )
        setattr(func, MARK, spec)
        return func

    return mark
