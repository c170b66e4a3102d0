"""Hosts: LocalHost, SSHHost, EvidenceHost behind the `Host` protocol."""
from llmdoctor.hosts.base import (  # noqa: F401
    CommandNotFound,
    CommandResult,
    CommandTimeout,
    Host,
    HostError,
    HostUnreachable,
    HttpResponse,
    NotInEvidence,
)
