"""SGLang: its launch command line, scheduler log lines, /metrics and /get_server_info (FORMATS.md)."""
