"""A small multithreaded workload for `kscope capture`: 4 threads, each 0.4 s of
short compute bursts (~1 ms) separated by 1 ms sleeps. Python threads register
rseq through glibc, so the capture holds rseq_update (with mm_cid) for each."""

import threading
import time


def work() -> None:
    end = time.monotonic() + 0.4
    while time.monotonic() < end:
        sum(range(3000))
        time.sleep(0.001)


threads = [threading.Thread(target=work, name=f"worker{i}") for i in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
