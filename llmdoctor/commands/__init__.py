"""Sub-commands beyond `diagnose`, `collect` and `checks`: each module here defines
`register(app: typer.Typer) -> None` and is picked up by `llmdoctor.cli` automatically."""
