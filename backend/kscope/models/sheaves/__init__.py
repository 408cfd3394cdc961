"""The SLUB sheaves model (seed 002: "mm/slub: keep empty main sheaf as spare in
__pcs_replace_empty_main") in the backend.

- native/mmap2.py: the ctypes binding of the C mmap2 runner (kscope/sheaves/native/mmap2.h);
- repro.py + text_report.py: `kscope repro sheaves`, the seed's will-it-scale mmap2 tables,
  bpftrace counts, perf spinlock share and the capacity-sweep prediction, beside the model's;
- host/mmap2_loop.c: the loop used to measure this host's allocations and time per mmap.

The descriptor below is all the generic code reads before it calls one of these.
"""

from kscope.models.model import Model, Repro

MODEL = Model(
    name="sheaves",
    about="SLUB per-CPU sheaves, the per-node barn and its lock: before and after keeping the "
          "empty main sheaf as spare (seed 002)",
    sim_algos=("sheaves:nofix", "sheaves:fix", "sheaves:fix-v2", "sheaves:baseline"),
    sim_auto="never: a workload names it (sheaves:<variant>[+nospare][+capacity=N])",
    repro=Repro(
        about="seed 002, will-it-scale mmap2 on gnr-2s-snc and epyc-9654-2s: barn calls per mmap, "
              "ops/s deltas, spinlock share, capacity sweep (--rounds: measured 4 ms ticks)",
        module="kscope.models.sheaves.repro",
        report="kscope.models.sheaves.text_report",
        rounds_default=5,
        runs_default=1,   # the seed only drives get_any_partial's draw: runs barely differ
    ),
)
