/*
 * kscope/kscope.h: the whole public C API of the kscope core.
 * Bindings (bindings/exported_functions.json for wasm, the backend's ctypes
 * loader for native) see nothing but what these headers declare.
 */
#ifndef KSCOPE_KSCOPE_H
#define KSCOPE_KSCOPE_H

#include "kscope/status.h"
#include "kscope/parse.h"
#include "kscope/topology.h"
#include "kscope/event.h"
#include "kscope/ftrace.h"
#include "kscope/tracedat.h"
#include "kscope/perf.h"
#include "kscope/systrace.h"
#include "kscope/trace_detect.h"
#include "kscope/native/columns.h"
#include "kscope/sim_cost.h"
#include "kscope/mm_cid/mm_cid.h"   /* registry: the models' view formats */
#include "kscope/cpupri/cpupri.h"   /* registry: the models' view formats */
#include "kscope/sheaves/sheaves.h" /* registry: the models' view formats */

#endif
