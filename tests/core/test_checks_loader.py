"""The plugin loader: built-in dir, extra dirs, entry points; crash isolation."""
from __future__ import annotations

import textwrap

from llmdoctor.plugins import builtin_checks_dir, load_checks, run_check
from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.facts import Context, FactStore, FactUnavailable, provider
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.model import Cause

SITE_CHECK = textwrap.dedent(
    '''
    from llmdoctor.plugins import check
    from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity

    @check(id="site-always", cause=Cause.QUEUEING)
    def always(test_fact):
        """A site check that always fires."""
        yield Finding(Cause.QUEUEING, Severity.WARNING, "site says so",
                      [Evidence("test", str(test_fact))], Fix("do the thing"))

    @check(id="site-crash", cause=Cause.SWAP, purpose="crashes on purpose")
    def crash(test_fact):
        raise RuntimeError("boom")

    @check(id="site-needs-missing", cause=Cause.SWAP, purpose="needs a fact that is missing")
    def needs_missing(missing_fact):
        raise AssertionError("must not run")

    @check(id="site-optional", cause=Cause.PREFILL, purpose="optional fact")
    def optional(missing_fact=None):
        assert missing_fact is None
        return None
    '''
)


@provider("test_fact")
def _test_fact(ctx):
    return 42


@provider("missing_fact")
def _missing_fact(ctx):
    raise FactUnavailable("not here in tests")


def test_builtin_dir_exists_and_loads():
    assert builtin_checks_dir().is_dir()
    specs, errors = load_checks(site_dir=None)
    assert not [e for e in errors if "failed to load" in e], errors
    ids = [s.id for s in specs]
    assert len(ids) == len(set(ids))


def test_site_dir_checks_run_and_crash_is_isolated(tmp_path):
    d = tmp_path / "site"
    d.mkdir()
    (d / "mine.py").write_text(SITE_CHECK)
    (d / "broken.py").write_text("this is not python(")
    specs, errors = load_checks([d], site_dir=None, entry_points=False)
    mine = {s.id: s for s in specs if s.origin == "site"}
    assert set(mine) == {"site-always", "site-crash", "site-needs-missing", "site-optional"}
    assert any("broken.py failed to load" in e for e in errors)
    assert mine["site-always"].purpose == "A site check that always fires."

    ev = tmp_path / "ev"
    ev.mkdir()
    store = FactStore(Context(EvidenceHost(ev)))
    out = run_check(mine["site-always"], store)
    assert [f.check for f in out.findings] == ["site-always"]
    assert out.findings[0].evidence[0].text == "42"
    assert run_check(mine["site-crash"], store).crash == "check crashed: site-crash: RuntimeError: boom"
    assert run_check(mine["site-needs-missing"], store).skipped_for == "not here in tests"
    assert run_check(mine["site-optional"], store).findings == ()


def test_diagnose_keeps_going_after_a_crash(tmp_path):
    d = tmp_path / "site"
    d.mkdir()
    (d / "mine.py").write_text(SITE_CHECK)
    ev = tmp_path / "ev"
    ev.mkdir()
    opts = DiagnoseOptions(checks_dirs=(str(d),), only=("site-always", "site-crash"))
    result = diagnose_target(EvidenceHost(ev), opts)
    assert [f.check for f in result.report.findings] == ["site-always"]
    assert any(e.startswith("check crashed: site-crash") for e in result.report.errors)


def test_only_selects_by_cause(tmp_path):
    d = tmp_path / "site"
    d.mkdir()
    (d / "mine.py").write_text(SITE_CHECK)
    ev = tmp_path / "ev"
    ev.mkdir()
    result = diagnose_target(EvidenceHost(ev), DiagnoseOptions(checks_dirs=(str(d),), only=("QUEUEING",)))
    assert {f.cause for f in result.report.findings} <= {Cause.QUEUEING}
