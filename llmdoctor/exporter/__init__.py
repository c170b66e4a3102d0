"""Prometheus exporter: the diagnosis on a schedule, served as metrics.

metrics.py maps a run's report and facts to metric families (pure);
collector.py serves the latest snapshot on a dedicated registry; scheduler.py
runs the diagnosis in the background; textfile.py writes node_exporter
textfiles atomically; service.py ties them together for the CLI.
"""
