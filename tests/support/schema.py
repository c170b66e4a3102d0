"""Every test that reads a report as JSON reads it through `report_doc`, which validates it
against the published schema (llmdoctor/schema/report.schema.json): the schema is the
contract, so a key a renderer adds or drops without it fails here."""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import jsonschema

from llmdoctor.schema import report_schema


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    schema = report_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def report_doc(text: str) -> dict[str, Any]:
    """The parsed report, or an AssertionError naming the first place it breaks the schema."""
    doc = json.loads(text)
    errors = sorted(_validator().iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, f"report breaks the schema at {list(errors[0].path)}: {errors[0].message}"
    return doc
