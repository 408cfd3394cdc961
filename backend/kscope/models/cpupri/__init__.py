"""The cpupri model (the RT CPU priority map, seed 001's per-NUMA-node split) in the backend.

- native/view.py: the ctypes binding of the model's views (kscope/cpupri/cpupri.h);
- seed_c2c.py: the seed's perf c2c appendix (data/seed001-c2c-appendix.txt) as rows;
- repro.py + text_report.py: `kscope repro cpupri`, the seed's FFmpeg shape on hcc-2s-480.
"""

from kscope.models.model import Model, Repro

MODEL = Model(
    name="cpupri",
    about="the RT scheduler's CPU priority map (kernel/sched/cpupri.c): v6.12's global masks, "
          "seed 001's per-NUMA-node split, kscope's 6.12 per-node patch",
    sim_algos=("cpupri:global", "cpupri:pernode", "cpupri:pernode-kscope"),
    sim_auto="never (run it with --algo cpupri:<variant>)",
    repro=Repro(
        about="seed 001 (cpupri per NUMA node), 60 FFmpeg-like instances x 8 CPUs on hcc-2s-480",
        module="kscope.models.cpupri.repro",
        report="kscope.models.cpupri.text_report",
    ),
)
