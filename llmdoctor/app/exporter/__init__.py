"""Prometheus exporter: the diagnosis on a schedule, served as metrics.

readings.py reads figures from a run's facts (lenient, pure); counters.py keeps
counters monotonic across runs and source restarts; metrics.py maps a run's
report and readings to metric families (pure); collector.py serves the latest
snapshot on a dedicated registry; scheduler.py runs the diagnosis in the
background; textfiles are written atomically (llmdoctor.atomic); state.py
keeps what a `--once` run leaves for the next; service.py ties them together
for `llmdoctor exporter`.
"""
