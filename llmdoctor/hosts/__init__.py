"""Hosts: LocalHost, SSHHost, EvidenceHost behind the `Host` protocol."""
from .base import (  # noqa: F401
    CommandNotFound,
    CommandResult,
    CommandTimeout,
    Host,
    HostError,
    HostUnreachable,
    HttpResponse,
    NotInEvidence,
)
