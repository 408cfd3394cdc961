/* fuzz/fuzz_lscpu.c: the `lscpu -p` topology importer (src/machine/lscpu_parser.c). */
#include "fuzz_topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    fuzz_topology_import(ks_topology_from_lscpu, bytes, size);
    return 0;
}
