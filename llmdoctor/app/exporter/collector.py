"""A custom Collector that serves the latest snapshot, on a registry of its own.

A scrape only hands out families prepared after the last diagnosis run: it never
collects anything, so it is cheap and bounded however often Prometheus asks.
"""
from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import Metric
from prometheus_client.registry import Collector


class SnapshotCollector(Collector):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._families: tuple[Metric, ...] = ()

    def publish(self, families: Iterable[Metric]) -> None:
        """Replace the snapshot; a scrape sees either the old one or the new one, whole."""
        snapshot = tuple(families)
        with self._lock:
            self._families = snapshot

    def collect(self) -> Iterator[Metric]:
        with self._lock:
            snapshot = self._families
        yield from snapshot

    def describe(self) -> Iterator[Metric]:
        # Nothing to describe up front; keeps register() from calling collect().
        return iter(())


def dedicated_registry() -> tuple[CollectorRegistry, SnapshotCollector]:
    """A registry with only llmdoctor's collector: no process or GC metrics of the exporter."""
    registry = CollectorRegistry(auto_describe=False)
    collector = SnapshotCollector()
    registry.register(collector)
    return registry, collector


def exposition(registry: CollectorRegistry) -> bytes:
    """The text exposition format (0.0.4), as Prometheus and node_exporter read it."""
    return generate_latest(registry)
