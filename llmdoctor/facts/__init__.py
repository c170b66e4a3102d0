"""Fact collectors: Host -> typed, frozen fact objects, collected lazily.

A provider is a function registered under a fact name with `@provider("name")`.
Its parameters say what it needs, the way pytest fixtures do: `ctx` receives the
`Context`; any other parameter name is another fact, resolved first. A parameter
with a default receives that default when the fact is unavailable.

A provider that cannot deliver raises `FactUnavailable(reason)`; `quiet=True`
means "does not apply here" (e.g. vLLM facts on an Ollama host) and is not shown
as a gap in the report. Any other exception is caught and becomes an unavailable
fact with the error as its reason, so one broken collector never ends a run.

The provider modules named in facts/catalogue.py are imported on first use, each when a
fact of its own is first asked for (start-up time: a diagnosis of Ollama evidence never
imports the vLLM collectors); adding a fact is a provider and its line in the catalogue
(name, type, purpose, module).
"""
from __future__ import annotations

import importlib
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from llmdoctor.hosts.base import Host, HostError

CTX = "ctx"


class FactUnavailable(Exception):
    def __init__(self, reason: str, quiet: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.quiet = quiet


def kept_json(host, what: str, parse: Callable[[bytes], Any]) -> Any:
    """What a recording kept of `what` (host.kept()), parsed: quietly unavailable when it kept
    none (most recordings hold few of these), one line when it does not parse."""
    from llmdoctor.hosts.base import HostError

    name = next(iter(host.kept(what)), f"{what} record")
    try:
        data = host.read(name)
    except (OSError, HostError):
        raise FactUnavailable(f"no {name} in the evidence", quiet=True) from None
    try:
        return parse(data)
    except (ValueError, TypeError, RecursionError) as e:
        raise FactUnavailable(f"unparseable {name}: {e}") from None


@dataclass(frozen=True)
class RunOptions:
    """What the user asked of this run, beyond the host and the time windows."""

    probe: bool = False  # run the live probe (it sends requests, so never implicitly)
    probe_deadline: float = 60.0  # seconds the whole probe may take
    probe_model: str | None = None  # the model to probe (default: the one loaded)
    log_files: tuple[str, ...] = ()  # --log FILE, read besides the journals
    state_dir: str | None = None  # remember log positions here, so a scheduled run reads only new lines
    journal_directory: str | None = None  # read journal files from here instead of the system journal
    instance_port: int | None = None  # --url: diagnose only the engine instance listening on this port

    @classmethod
    def of(cls, value: "RunOptions | dict[str, Any] | None") -> "RunOptions":
        """A RunOptions from itself, None, or a mapping of its fields (a typo is a TypeError)."""
        if isinstance(value, cls):
            return value
        items = dict(value or {})
        if "log_files" in items:
            items["log_files"] = tuple(items["log_files"] or ())
        return cls(**items)


class Context:
    """What a collector may know about the run besides the host. (A plain class, never
    compared or copied: a dataclass costs ~1 ms of every run's start to define.)"""

    __slots__ = ("host", "units", "since_seconds", "sample_seconds", "options")

    def __init__(self, host: Host, units: tuple[str, ...] = (), since_seconds: float = 24 * 3600.0,
                 sample_seconds: float = 2.0, options: RunOptions | dict[str, Any] | None = None) -> None:
        self.host = host
        self.units = units  # --unit NAME; empty = discover
        self.since_seconds = since_seconds  # log time window
        self.sample_seconds = sample_seconds  # the one window the samplers share (app.diagnose.sample_together)
        self.options = RunOptions.of(options)

    def __repr__(self) -> str:
        return (f"Context(host={self.host!r}, units={self.units!r}, since_seconds={self.since_seconds!r}, "
                f"sample_seconds={self.sample_seconds!r}, options={self.options!r})")


class Provider:
    """A fact collector: the fact it provides and the facts (parameters) it needs. (A plain
    class, only ever read: defining a frozen dataclass costs ~1 ms of every run's start.)"""

    __slots__ = ("name", "func", "params", "optional", "module")

    def __init__(self, name: str, func: Callable[..., Any], params: tuple[str, ...], optional: frozenset[str],
                 module: str) -> None:
        self.name = name
        self.func = func
        self.params = params
        self.optional = optional
        self.module = module

    def __repr__(self) -> str:
        return f"Provider({self.name!r}, {self.module!r})"


PROVIDERS: dict[str, Provider] = {}
_loaded = False
_load_lock = threading.Lock()


def parameters(func: Callable[..., Any]) -> tuple[tuple[str, ...], frozenset[str]]:
    """(parameter names, those with a default), read off the code object: inspect.signature
    costs a few milliseconds over every provider and check of a run."""
    code = getattr(func, "__code__", None)
    if code is None or code.co_flags & 0x0C or code.co_kwonlyargcount:  # *args/**kwargs, keyword-only
        import inspect

        sig = inspect.signature(func)
        return (tuple(sig.parameters),
                frozenset(p for p, v in sig.parameters.items() if v.default is not inspect.Parameter.empty))
    names = code.co_varnames[:code.co_argcount]
    defaults = len(func.__defaults__ or ())
    return tuple(names), frozenset(names[len(names) - defaults:] if defaults else ())


def provider(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        params, optional = parameters(func)
        PROVIDERS[name] = Provider(name, func, params, optional, func.__module__)
        return func

    return register


def load_providers() -> dict[str, Provider]:
    """Every provider, each catalogued module imported (`llmdoctor facts`, tests); a
    diagnosis imports a module only when one of its facts is asked for (FactStore.get)."""
    global _loaded
    with _load_lock:
        if not _loaded:
            from llmdoctor.facts.catalogue import MODULES

            for module in MODULES:
                importlib.import_module(f"{__name__}.{module}")
            _loaded = True
    return PROVIDERS


def _provider_of(name: str) -> Provider | None:
    """The provider of a fact, its catalogued module imported first if need be."""
    prov = PROVIDERS.get(name)
    if prov is None:
        from llmdoctor.facts.catalogue import BY_NAME

        spec = BY_NAME.get(name)
        if spec is not None:
            importlib.import_module(f"{__name__}.{spec.module}")
            prov = PROVIDERS.get(name)
    return prov


class FactStore:
    """Collects each fact at most once per run and remembers why one is missing."""

    def __init__(self, ctx: Context, preset: dict[str, Any] | None = None) -> None:
        self.ctx = ctx
        self.providers = PROVIDERS  # filled as facts are asked for (_provider_of)
        self.values: dict[str, Any] = dict(preset or {})
        self.missing: dict[str, FactUnavailable] = {}
        self.timings: dict[str, float] = {}  # seconds in each collector, its dependencies not counted
        self._resolving: set[str] = set()

    def known(self, name: str) -> bool:
        from llmdoctor.facts.catalogue import BY_NAME

        return name == CTX or name in self.providers or name in BY_NAME or name in self.values

    def get(self, name: str) -> Any:
        """The fact's value, or raise FactUnavailable."""
        if name == CTX:
            return self.ctx
        if name in self.values:
            return self.values[name]
        if name in self.missing:
            raise self.missing[name]
        prov = _provider_of(name)
        if prov is None:
            raise FactUnavailable(f"no collector provides {name!r}")
        if name in self._resolving:
            raise FactUnavailable(f"collectors depend on each other in a cycle at {name!r}")
        self._resolving.add(name)
        try:
            kwargs = self.resolve(prov.params, prov.optional)
        except FactUnavailable as e:
            self.missing[name] = e
            raise
        finally:
            self._resolving.discard(name)
        return self._keep(name, self._collect(prov, kwargs))

    def _collect(self, prov: Provider, kwargs: dict[str, Any]) -> tuple[Any, FactUnavailable | None]:
        """One collector's call: (its value, None) or (None, why there is none). A collector bug
        must not end the run. Touches nothing shared but `timings` (collect_together's threads)."""
        started = time.perf_counter()
        try:
            return prov.func(**kwargs), None
        except FactUnavailable as e:
            return None, e
        except Exception as e:  # (HostError: its own words)
            why = FactUnavailable(str(e) if isinstance(e, HostError) else f"collector failed: {type(e).__name__}: {e}")
            why.__cause__ = e
            return None, why
        finally:
            self.timings[prov.name] = time.perf_counter() - started

    def _keep(self, name: str, outcome: tuple[Any, FactUnavailable | None]) -> Any:
        value, why = outcome
        if why is not None:
            self.missing[name] = why
            raise why
        self.values[name] = value
        return value

    def collect_together(self, names: Iterable[str]) -> None:
        """Collect the facts `names` at once, each collector in a thread of its own once the facts
        it needs are collected (here, in turn). For the facts that each sample the live host over
        ctx.sample_seconds: the run then waits one window for them all, not one each in turn."""
        jobs, outcomes = [], {}
        for name in names:
            if name in self.values or name in self.missing or name == CTX:
                continue
            prov = _provider_of(name)
            if prov is None:
                continue
            try:
                jobs.append((name, prov, self.resolve(prov.params, prov.optional)))
            except FactUnavailable as e:
                self.missing[name] = e

        def run(name: str, prov: Provider, kwargs: dict[str, Any]) -> None:
            outcomes[name] = self._collect(prov, kwargs)

        threads = [threading.Thread(target=run, args=job, daemon=True, name=f"llmdoctor-{job[0]}") for job in jobs[1:]]
        for t in threads:
            t.start()
        if jobs:
            run(*jobs[0])
        for t in threads:
            t.join()
        for name, _, _ in jobs:
            try:
                self._keep(name, outcomes.get(name) or (None, FactUnavailable("its collector did not finish")))
            except FactUnavailable:
                pass

    def needed(self, names: Iterable[str]) -> set[str]:
        """The facts that collecting `names` asks for, these included (each provider's parameters, in turn)."""
        seen: set[str] = set()
        todo = list(names)
        while todo:
            name = todo.pop()
            if name in seen or name == CTX:
                continue
            seen.add(name)
            prov = _provider_of(name)
            if prov is not None:
                todo.extend(prov.params)
        return seen

    def optional(self, name: str, default: Any = None) -> Any:
        try:
            return self.get(name)
        except FactUnavailable:
            return default

    def resolve(self, params: tuple[str, ...], optional: frozenset[str]) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        for p in params:
            try:
                kwargs[p] = self.get(p)
            except FactUnavailable:
                if p not in optional:
                    raise
        return kwargs
