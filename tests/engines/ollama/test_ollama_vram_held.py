"""ollama-vram-held: the inventory's `available=` against its `total=` (Ollama plans loads against
the free memory), on the real line of ollama/ollama#11577 and where it must stay silent."""
from __future__ import annotations

from llmdoctor.knowledge.ollama.log import scan
from llmdoctor.knowledge.ollama.ps import parse_ps_text


def log(*lines):
    return scan(list(lines), "journal.log")


# ollama/ollama#11577 (0.9.6, Windows): 19.1 GiB of the 48 GiB card held by other programs
HELD = ('time=2025-07-30T13:57:36.747+08:00 level=INFO source=types.go:130 msg="inference compute" '
        'id=GPU-3f38252a-4b62-9ac0-f4f6-e01cb9059f91 library=cuda variant=v12 compute=8.9 driver=12.9 '
        'name="NVIDIA RTX 5880 Ada Generation" total="48.0 GiB" available="28.9 GiB"')
# a desktop's few hundred MiB (the RTX 4090 line of the ollama-kv-fits fixture)
DESKTOP = ('time=2025-02-09T21:59:37.882Z level=INFO source=types.go:130 msg="inference compute" id=GPU-0 '
           'library=cuda variant=v12 compute=8.9 driver=12.4 name="NVIDIA GeForce RTX 4090" total="23.6 GiB" '
           'available="23.2 GiB"')
CPU = ('time=2025-02-09T21:59:37.882Z level=INFO source=types.go:130 msg="inference compute" id=cpu library=cpu '
       'compute="" driver=0.0 name="" total="127.1 GiB" available="12.0 GiB"')


def test_inventory_reads_what_was_free():
    (s,) = log(HELD).startups
    assert s.gpu_total_bytes == 48 * 2**30 and round(s.gpu_available_bytes / 2**30, 1) == 28.9
    (s,) = log(HELD.replace(' available="28.9 GiB"', "")).startups
    assert s.gpu_available_bytes is None
    (s,) = log(HELD.replace('available="28.9 GiB"', 'available="lots"')).startups
    assert s.gpu_available_bytes is None


def test_fires_on_memory_held_by_others(fire):
    (f,) = fire("ollama-vram-held", ollama_log=log(HELD))
    assert "19.1 GiB (40%)" in f.title and f.evidence[0].text == HELD


def test_silent_on_a_desktop_share_a_cpu_inventory_or_a_model_that_fit(fire):
    assert fire("ollama-vram-held", ollama_log=log(DESKTOP)) == ()
    assert fire("ollama-vram-held", ollama_log=log(CPU)) == ()
    row = "NAME  ID  SIZE  PROCESSOR  UNTIL\nqwen3:30b  0123456789ab  21 GB  100% GPU  4 minutes from now\n"
    assert fire("ollama-vram-held", ollama_log=log(HELD), ollama_ps=parse_ps_text(row)) == ()
