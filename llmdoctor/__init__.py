"""llmdoctor: find why a self-hosted LLM server gets slow, prove it, and fix it."""
__version__ = "0.1.0"

# Allocations between two passes of the cyclic garbage collector in a command-line run.
# Python's default (700) makes ~40 passes while a diagnosis imports and sets up (~8 ms, a
# tenth of its start-up, re-scanning objects that all live on); 50,000 makes none there and
# still bounds what waits to be collected to a few MB.
GC_ALLOCATIONS = 50_000


def collect_garbage_less() -> None:
    """Fewer cyclic-collector passes for this process (the command line's start, not a library's)."""
    import gc

    gc.set_threshold(GC_ALLOCATIONS, *gc.get_threshold()[1:])
