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
