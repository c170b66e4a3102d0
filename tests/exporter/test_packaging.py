"""packaging/: alert rules and their promtool tests, the dashboard, the scrape example, the units."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from llmdoctor.app.exporter.metrics import exported_names
from tests.exporter.promql_names import metric_names
from tests.support import prometheus as prom_support

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
RULES = PACKAGING / "prometheus" / "rules.yml"
RULES_TEST = PACKAGING / "prometheus" / "rules_test.yml"
DASHBOARD = PACKAGING / "grafana" / "dashboard.json"
SCRAPE = PACKAGING / "prometheus" / "scrape.yml"
UNITS = sorted((PACKAGING / "systemd").glob("*.service")) + sorted((PACKAGING / "systemd").glob("*.timer"))
# Prometheus' own series the rules may use besides ours.
PROMETHEUS_SERIES = {"up"}

needs_promtool = pytest.mark.skipif(prom_support.promtool_skip_reason() is not None,
                                    reason=prom_support.promtool_skip_reason() or "")


def rules() -> list[dict]:
    return [r for g in yaml.safe_load(RULES.read_text())["groups"] for r in g["rules"]]


def panel_exprs(dashboard: dict) -> list[tuple[str, str]]:
    out = []
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            out.append((panel["title"], target["expr"]))
    return out


def test_metric_name_parser():
    assert metric_names('rate(llmdoctor_preemptions_total{instance=~"$instance"}[$__rate_interval]) * 60') == {"llmdoctor_preemptions_total"}
    assert metric_names('a > 0 or on (job, instance) max by (job, cause) (b{cause=~"X|Y"}) == 1') == {"a", "b"}
    assert metric_names("time() - x > 3 * y and ignoring(device) z offset 5m") == {"x", "y", "z"}
    assert metric_names("avg_over_time(s_in[10m]) + 1e6") == {"s_in"}


@needs_promtool
def test_promtool_check_rules():
    p = prom_support.promtool("check", "rules", str(RULES))
    assert p.returncode == 0, p.stdout.decode() + p.stderr.decode()


@needs_promtool
def test_promtool_test_rules():
    p = prom_support.promtool("test", "rules", str(RULES_TEST))
    assert p.returncode == 0, p.stdout.decode() + p.stderr.decode()


def test_every_alert_has_a_firing_test():
    alerts = {r["alert"] for r in rules() if "alert" in r}
    assert {"LLMRequestsQueueing", "LLMModelSpilledToCPU", "LLMHostSwapping", "LLMRequestsPreempted",
            "LLMModelReloadChurn", "LLMSlowFirstToken", "LLMDoctorStale"} <= alerts
    fired = set()
    for test in yaml.safe_load(RULES_TEST.read_text())["tests"]:
        for case in test.get("alert_rule_test", []):
            if case.get("exp_alerts"):
                fired.add(case["alertname"])
    assert alerts == fired, f"alerts without a firing test: {alerts - fired}"


def test_rules_name_only_exported_metrics_and_use_rates_of_counters():
    known = exported_names() | PROMETHEUS_SERIES
    counters = {n for n in exported_names() if n.endswith("_total")}
    for rule in rules():
        expr = rule["expr"]
        names = metric_names(expr)
        assert names <= known, f"{rule.get('alert')}: unknown metrics {names - known}"
        for counter in names & counters:
            # a counter only ever inside rate()/increase(): raw totals depend on the exporter's start
            assert re.search(rf"(?:rate|increase)\(\s*{counter}\b", expr), f"{rule['alert']}: raw {counter}"


def test_dashboard_loads_and_panels_query_exported_metrics():
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = panel_exprs(dashboard)
    assert len(exprs) >= 10
    known = exported_names()
    for title, expr in exprs:
        names = metric_names(expr)
        assert names, f"{title}: query names no metric: {expr}"
        assert names <= known, f"{title}: not exported: {names - known}"
    titles = " ".join(p["title"].lower() for p in dashboard["panels"])
    for topic in ("first token", "inter-token", "queue", "kv cache", "memory placement", "swap", "findings"):
        assert topic in titles, topic
    for panel in dashboard["panels"]:
        assert panel.get("description"), f"{panel['title']} has no description"
    described = [p for p in dashboard["panels"] if "steady climb" in p["description"] and "sawtooth" in p["description"]]
    assert {"Time to first token (probe)", "Queue depth"} <= {p["title"] for p in described}
    for var in dashboard["templating"]["list"]:
        if var["type"] == "query":
            assert metric_names(var["definition"].replace("label_values(", "").split(",")[0]) <= known


@needs_promtool
def test_dashboard_queries_are_valid_promql(tmp_path):
    """promtool parses every panel query (wrapped as recording rules, Grafana variables filled in)."""
    dashboard = json.loads(DASHBOARD.read_text())
    records = []
    for i, (_, expr) in enumerate(panel_exprs(dashboard)):
        expr = expr.replace("$__rate_interval", "5m").replace("$instance", ".*").replace("$target", ".*")
        records.append({"record": f"dashboard:panel_{i}", "expr": expr})
    path = tmp_path / "panels.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "panels", "rules": records}]}))
    p = prom_support.promtool("check", "rules", str(path))
    assert p.returncode == 0, p.stdout.decode() + p.stderr.decode()


def test_every_panel_is_per_target():
    """A fleet: every query filters by the $target variable (each metric selector, not
    just one of them) and every legend names the target, so two series never read alike."""
    dashboard = json.loads(DASHBOARD.read_text())
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert variables["target"]["type"] == "query" and variables["target"]["includeAll"]
    assert variables["target"]["allValue"] == ".*"  # matches a single target's absent label too
    assert "target)" in variables["target"]["definition"]
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            expr = target["expr"]
            selectors = re.findall(r"\b(llmdoctor_\w+)(\{[^}]*\})?", expr)
            assert selectors, expr
            for name, labels in selectors:
                assert 'target=~"$target"' in labels, f"{panel['title']}: {name} not filtered by $target"
            assert "{{target}}" in target["legendFormat"], f"{panel['title']}: legend {target['legendFormat']!r}"
            by = re.findall(r"\bby\s*\(([^)]*)\)", expr)
            assert all("target" in b for b in by), f"{panel['title']}: aggregates the target away: {expr}"


def test_dashboard_conforms_to_grafanas_schema():
    """Grafana's dashboard schema as the Grafana Foundation SDK types it (no Grafana server
    can be installed here): no unknown field, every value of the schema's type."""
    pytest.importorskip("grafana_foundation_sdk", reason="grafana-foundation-sdk is not installed (test extra)")
    from tests.exporter.grafana_schema import problems

    dashboard = json.loads(DASHBOARD.read_text())
    assert problems(dashboard) == []
    broken = json.loads(DASHBOARD.read_text())
    broken["templating"]["list"][-1]["type"] = "qurey"
    broken["panels"][0]["gridPos"]["w"] = "12"
    broken["panels"][1]["legend"] = {}
    found = "\n".join(problems(broken))
    assert "'qurey' not one of" in found and "'12' is not an integer" in found
    assert "/panels[1]/legend: not a field of the schema" in found


def test_exporter_down_alert_does_not_depend_on_the_exporters_job():
    """In textfile mode the series come under node_exporter's job: the up-style alert
    must also see llmdoctor's own series vanish (promtool cases in rules_test.yml)."""
    expr = next(r["expr"] for r in rules() if r.get("alert") == "LLMDoctorExporterDown")
    assert 'up{job="llmdoctor"}' in expr and "llmdoctor_last_run_timestamp_seconds" in expr
    modes = [t["name"] for t in yaml.safe_load(RULES_TEST.read_text())["tests"]
             if any(c["alertname"] == "LLMDoctorExporterDown" and c.get("exp_alerts") for c in t.get("alert_rule_test", []))]
    assert any("textfile" in m for m in modes) and any("exporter" in m and "textfile" not in m for m in modes), modes


@needs_promtool
def test_scrape_example_is_valid_config():
    p = prom_support.promtool("check", "config", "--syntax-only", str(SCRAPE))
    assert p.returncode == 0, p.stdout.decode() + p.stderr.decode()
    jobs = [j["job_name"] for j in yaml.safe_load(SCRAPE.read_text())["scrape_configs"]]
    assert "llmdoctor" in jobs  # LLMDoctorExporterDown matches this job name


def unit_settings(path: Path) -> dict[str, list[str]]:
    settings: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        m = re.match(r"^(\w+)=(.*)$", line)
        if m:
            settings.setdefault(m.group(1), []).append(m.group(2))
    return settings


def test_exporter_unit_is_hardened_and_listens_on_loopback():
    s = unit_settings(PACKAGING / "systemd" / "llmdoctor-exporter.service")
    assert s["NoNewPrivileges"] == ["yes"] and s["ProtectSystem"] == ["strict"]
    assert "systemd-journal" in s["SupplementaryGroups"][0]
    assert s["CapabilityBoundingSet"] == [""]
    assert "--listen 127.0.0.1:" in s["ExecStart"][0]
    assert s["User"] == ["llmdoctor"]


def test_textfile_units_are_a_oneshot_and_its_timer():
    service = unit_settings(PACKAGING / "systemd" / "llmdoctor-textfile.service")
    timer = unit_settings(PACKAGING / "systemd" / "llmdoctor-textfile.timer")
    assert service["Type"] == ["oneshot"]
    assert "--textfile" in service["ExecStart"][0] and "--once" in service["ExecStart"][0]
    textfile = re.search(r"--textfile\s+(\S+)", service["ExecStart"][0]).group(1)
    assert any(textfile.startswith(p.rstrip("/") + "/") for p in service["ReadWritePaths"])
    assert service["NoNewPrivileges"] == ["yes"] and service["ProtectSystem"] == ["strict"]
    assert timer["Unit"] == ["llmdoctor-textfile.service"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_units_pass_systemd_analyze_verify(tmp_path):
    for unit in UNITS:  # ExecStart must name an existing binary for verify
        (tmp_path / unit.name).write_text(unit.read_text().replace("/usr/local/bin/llmdoctor", "/bin/true"))
    p = subprocess.run(["systemd-analyze", "verify", *[str(tmp_path / u.name) for u in UNITS]],
                       capture_output=True, timeout=60)
    assert p.returncode == 0, p.stdout.decode() + p.stderr.decode()


def test_readme_documents_every_metric():
    readme = (PACKAGING / "README.md").read_text()
    missing = [n for n in exported_names() if f"`{n}`" not in readme]
    assert not missing, f"packaging/README.md does not document {missing}"


def test_dashboard_json_is_built_from_its_source():
    p = subprocess.run([sys.executable, str(PACKAGING / "grafana" / "dashboard.py"), "--check"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
