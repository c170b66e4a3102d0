"""SGLang's `GET /get_server_info` (renamed `/server_info`; the old name still answers):
the ServerArgs fields flattened into one JSON object, plus the scheduler's
`max_total_num_tokens` and `max_req_input_len` (python/sglang/srt/entrypoints/http_server.py)."""
from __future__ import annotations

import json

from llmdoctor.parsing import ParseError

KEEP = ("model_path", "served_model_name", "port", "context_length", "mem_fraction_static", "max_running_requests",
        "max_total_tokens", "max_total_num_tokens", "max_req_input_len", "chunked_prefill_size",
        "max_prefill_tokens", "schedule_policy", "schedule_conservativeness", "kv_cache_dtype", "tp_size",
        "dp_size", "disable_radix_cache", "allow_auto_truncate", "page_size", "enable_metrics", "version")


def parse_server_info(text: str) -> dict:
    """The settings llmdoctor reads; raises ParseError for anything but SGLang's object."""
    try:
        data = json.loads(text)
    except ValueError as e:
        raise ParseError(f"not JSON: {e}")
    if not isinstance(data, dict) or "model_path" not in data or "tp_size" not in data:
        raise ParseError("not SGLang's server info (no model_path / tp_size)")
    return {k: data[k] for k in KEEP if k in data}
