import sys

from llmdoctor import collect_garbage_less

collect_garbage_less(sys.argv)  # before the command line's imports (typer's among them)

from llmdoctor.cli import main  # noqa: E402

main()
