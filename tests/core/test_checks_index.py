"""The index of the built-in checks (plugins/builtin_index.py) says what their modules say:
a diagnosis decides from it which checks apply before it imports them, so a stale index
would hide a check or run one where it does not belong."""
from __future__ import annotations

from llmdoctor.plugins import builtin_checks_dir, load_checks, run_check
from llmdoctor.plugins.deferred import INDEX, DeferredCheck, deferred_specs, index_text


def eager():
    specs, errors = load_checks(site_dir=None, entry_points=False)
    assert not errors, errors
    return specs


def test_the_index_is_what_the_check_modules_say():
    assert INDEX.read_text() == index_text(eager()), "stale: run `python -m llmdoctor.plugins.reindex`"


def test_deferred_specs_equal_the_loaded_ones_but_the_function():
    loaded = eager()
    deferred, errors = load_checks(site_dir=None, entry_points=False, deferred=True)
    assert not errors
    assert all(isinstance(s.func, DeferredCheck) for s in deferred)
    strip = lambda s: {**s.__dict__, "func": None}  # noqa: E731
    assert [strip(s) for s in deferred] == [strip(s) for s in loaded]
    for d, s in zip(deferred, loaded):
        assert d.func.load().__code__ is not None and d.func.load().__name__ == s.func.__name__
        assert d.func.path.stem == s.func.__code__.co_filename.rsplit("/", 1)[-1][:-3]


def test_a_checks_directory_that_is_not_the_indexed_one_is_loaded_module_by_module(tmp_path):
    for p in builtin_checks_dir().glob("*.py"):
        (tmp_path / p.name).write_text(p.read_text())
    assert deferred_specs(tmp_path, lambda path: None) is not None
    (tmp_path / "new_check.py").write_text("")
    assert deferred_specs(tmp_path, lambda path: None) is None


def test_a_deferred_check_runs_like_the_loaded_one(tmp_path):
    from llmdoctor.facts import Context, FactStore
    from llmdoctor.hosts.evidence import EvidenceHost

    ev = builtin_checks_dir().parent / "tests" / "fixtures" / "evidence" / "ollama-cpu-spill"
    loaded = {s.id: s for s in eager()}
    deferred = {s.id: s for s in load_checks(site_dir=None, entry_points=False, deferred=True)[0]}
    a = run_check(loaded["ollama-cpu-spill"], FactStore(Context(EvidenceHost(ev))))
    b = run_check(deferred["ollama-cpu-spill"], FactStore(Context(EvidenceHost(ev))))
    assert a.findings and a == b
