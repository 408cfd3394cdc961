"""The mm_cid model (cache-local concurrency ids, seed 000/003, commit 7e019dc) in the backend.

- conform.py: replaying a real trace through the model's variants, its disagreement causes
  in plain words, and the `kscope conform` text;
- native/conform.py: the ctypes binding of the C replay (conform.h) that conform.py drives;
- repro.py + text_report.py: `kscope repro mm_cid`, seed 000's benchmark on the modelled
  EPYC 9654, and its text;
- rseq_bench.py + rseq_bench_report.py: `kscope bench rseq`, the seed's benchmark itself
  (wasm-core/tools/mm_cid/rseq_bench) on this machine's kernel, indexed by rseq cpu_id,
  mm_cid and the model's cids;
- kernel_runs.py: what a VM capture of the intermittent workload says about mm_cid
  (`npm run test:kernel`).

The descriptor below is all the generic code reads before it calls one of these.
"""

from kscope.models.model import Bench, BenchOption, Conform, Model, Repro
from kscope.models.mm_cid.native.conform import VARIANTS

MODEL = Model(
    name="mm_cid",
    about="per-process concurrency ids (rseq mm_cid): 6.12's allocator, 7e019dc's cache-local "
          "design (v6.13), 6.18's, and 6.19's per-task / per-CPU ownership modes (Debian's 7.x)",
    sim_algos=tuple(f"mm_cid:{v}" for v in VARIANTS),
    sim_auto="mm_cid:v6.18, as a current kernel runs it, when a process of the workload registers rseq",
    conform=Conform(
        variants=VARIANTS,
        compares="rseq_update's mm_cid",
        needs="rseq:rseq_update events",
        variant_help="from the trace's kernel version (< 6.13: v6.12, 6.13-6.17: v6.13, "
                     "6.18: v6.18, >= 6.19 (7.x too): v6.19; variant_from \"header\")",
        module="kscope.models.mm_cid.conform",
        hz_help="CONFIG_HZ of the traced kernel: the modelled tick that runs the 100 ms scan",
        resync_help="after each disagreement the model adopts the kernel's cid: agreement then counts "
                    "decisions taken from the kernel's state (no cascade)",
    ),
    repro=Repro(
        about="seed 000 (7e019dc), librseq's intermittent benchmark on epyc-9654-2s",
        module="kscope.models.mm_cid.repro",
        report="kscope.models.mm_cid.text_report",
    ),
    bench=Bench(
        target="rseq",
        about="seed 000's benchmark itself (librseq's basic_percpu_benchmark) on this machine's kernel: ns per "
              "16 KiB burst indexed by rseq cpu_id, mm_cid and the model's cids (MEASURED; docs/rseq_bench.md)",
        module="kscope.models.mm_cid.rseq_bench",
        report="kscope.models.mm_cid.rseq_bench_report",
        options=(
            BenchOption("--loops", "loops", "int", "10", "measured bursts per thread (librseq: 5)"),
            BenchOption("--warmup-sweeps", "warmup_sweeps", "int", "20000",
                        "unmeasured sweeps before them (librseq: 20000)"),
            BenchOption("--delays", "delays", "ints", "0,1,10,100,200",
                        "delays between threads' bursts, ms (0: back to back)"),
            BenchOption("--thread-counts", "thread_counts", "ints", "1,2",
                        "threads per run, each pinned to its own CPU (counts above the CPUs allowed are skipped)"),
            BenchOption("--indexings", "indexings", "words", "cpu_id,mm_cid,model,fresh",
                        "what indexes the pool: rseq cpu_id, rseq mm_cid, the model's cids, or fresh (cpu_id's "
                        "index, but the first measured burst on a never-touched one)",
                        words=("cpu_id", "mm_cid", "model", "fresh")),
            BenchOption("--order-seed", "order_seed", "int", "1", "seed of the threads' random order"),
        ),
    ),
)
