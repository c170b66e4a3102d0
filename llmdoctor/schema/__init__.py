"""The published JSON Schema of the report (`llmdoctor schema` prints it): the contract
for every program that reads `diagnose --format json`."""
from __future__ import annotations

import json
from importlib import resources
from typing import Any


def report_schema_text() -> str:
    return resources.files(__name__).joinpath("report.schema.json").read_text(encoding="utf-8")


def report_schema() -> dict[str, Any]:
    return json.loads(report_schema_text())


def tune_schema() -> dict[str, Any]:
    """The JSON Schema of `tune ollama --format json` (its own shape, not a report)."""
    return json.loads(resources.files(__name__).joinpath("tune.schema.json").read_text(encoding="utf-8"))
