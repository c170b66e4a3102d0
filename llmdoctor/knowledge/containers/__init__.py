"""Pure readers of container evidence: `docker inspect`/`podman inspect` JSON and compose files."""
