"""The typed contract between collectors and checks: facts/catalogue.py names every fact and
its type; each provider is registered under a catalogued name and returns that type; each
check parameter is a catalogued fact, annotated with that type; each check declares the
engines it is about."""
from __future__ import annotations

import inspect
import re
import typing

import pytest

from llmdoctor.facts import load_providers
from llmdoctor.facts.catalogue import BY_NAME, CATALOGUE
from llmdoctor.knowledge.engines import LLAMACPP, OLLAMA, SGLANG, VLLM
from llmdoctor.plugins import load_checks

SPECS = load_checks(site_dir=None, entry_points=False)[0]


def short(type_text: str) -> str:
    """`tuple[llmdoctor.knowledge.x.Y, ...]` -> `tuple[Y, ...]`, as annotations write it."""
    return re.sub(r"[\w.]+\.(\w+)", r"\1", type_text)


def resolve(dotted: str):
    import importlib

    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_the_catalogue_and_the_providers_name_the_same_facts():
    ours = {n for n, p in load_providers().items() if p.module.startswith("llmdoctor.facts.")}  # (tests add their own)
    assert ours == set(BY_NAME)
    assert len(BY_NAME) == len(CATALOGUE)


@pytest.mark.parametrize("spec", CATALOGUE, ids=lambda s: s.name)
def test_each_catalogued_type_exists_and_the_provider_says_so(spec):
    for dotted in re.findall(r"llmdoctor\.[\w.]+", spec.type):
        assert isinstance(resolve(dotted), type), dotted
    provider = load_providers()[spec.name]
    assert provider.module == f"llmdoctor.facts.{spec.module}"
    returns = inspect.signature(provider.func).return_annotation
    if returns is not inspect.Signature.empty:
        assert short(spec.type) == str(returns).replace("typing.", ""), spec.name
    assert spec.purpose and "\n" not in spec.purpose, "one line of purpose, as `llmdoctor facts` prints it"


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_check_parameters_are_catalogued_facts_with_their_types(spec):
    hints = inspect.signature(spec.func).parameters
    for name in spec.params:
        assert name in BY_NAME, f"{spec.id}: {name} is not a fact"
        annotation = str(hints[name].annotation)
        want = short(BY_NAME[name].type)
        assert annotation in (want, f"{want} | None"), f"{spec.id}: {name}: {annotation} (catalogue: {want})"
        if name in spec.optional:
            assert annotation.endswith("| None") or hints[name].default is not None


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_engine_checks_declare_their_engine_and_a_trigger(spec):
    prefix = spec.id.split("-", 1)[0]
    engine = {"ollama": OLLAMA, "vllm": VLLM, "llamacpp": LLAMACPP, "sglang": SGLANG}.get(prefix)
    assert spec.engines == ((engine,) if engine else ()), spec.id
    assert set(spec.needs) <= set(spec.params)
    assert spec.needs or (set(spec.params) - spec.optional), f"{spec.id}: nothing triggers it"


def test_type_checking_imports_resolve():
    """The annotations name real classes (they are strings at run time: only type checkers read them)."""
    for spec in SPECS:
        module = inspect.getmodule(spec.func)
        source = inspect.getsource(module)
        block = re.search(r"if TYPE_CHECKING:.*?\n((?:    from .*\n)+)", source)
        if block is None:
            continue
        namespace: dict = {}
        exec(typing.cast(str, block.group(1)).replace("    from", "from"), namespace)  # noqa: S102 - our own imports
