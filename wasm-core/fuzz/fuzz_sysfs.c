/* fuzz/fuzz_sysfs.c: the flattened sysfs topology importer (src/machine/sysfs_parser.c). */
#include "fuzz_topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    fuzz_topology_import(ks_topology_from_sysfs, bytes, size);
    return 0;
}
