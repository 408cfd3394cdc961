"""`kscope calibrate`: the cost model's mechanisms measured on this machine's CPU, beside the
model's value for the same thing (docs/calibrate.md).

runner.py runs the C microbenchmarks (wasm-core/tools/calibrate, built by `make native`);
model.py asks the C cost model (cache_model.c, latency_tables.c) through libkscope.so what it
charges for the same sequences; cited.py holds what two vCPUs cannot measure (cross-CCD,
cross-socket), read from the model's table with its citations; report.py joins them.
"""
