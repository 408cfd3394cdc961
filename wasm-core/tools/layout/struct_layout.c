/*
 * struct_layout: prints the byte layout of every struct the C core shares with JS and
 * Python, as the compiler lays it out, as one JSON object:
 *
 *   {"ks_event": {"size": 96, "fields": {"ts_ns": [0, 8], "type": [8, 4], ...}}, ...}
 *
 * (each field: [offset, size]; union members as "u.sched_switch.prev_pid"). The tests
 * compare the layouts written out by hand with it: backend/tests/test_struct_layouts.py
 * (kscope/native/structs.py, kscope/ingest/records.py, kscope/bench/wasm_core.mjs) and
 * frontend/src/engine/struct_layouts.test.ts (the record decoders). Built natively by
 * `make native` (build/native/struct_layout); public headers only.
 *
 * A struct or field added to a shared header and read by hand elsewhere belongs here too:
 * a hand-written field that is not listed here fails those tests. A model's own structs
 * (include/kscope/<name>/) are listed in its folder, tools/layout/<name>/layout.inc,
 * included in place below by one registry line.
 */
#include <stddef.h>
#include <stdio.h>

#include "kscope/event.h"
#include "kscope/sim.h"
#include "kscope/parse.h"
#include "kscope/cache.h"
#include "kscope/cost.h"
#include "kscope/ftrace.h"
#include "kscope/tracedat.h"
#include "kscope/perf.h"
#include "kscope/systrace.h"
#include "kscope/trace_decoder.h"
#include "kscope/kscope.h"           /* the models' view formats (its registry) */
#include "kscope/topology.h"

static int first_struct = 1, first_field;

static void begin(const char *name, size_t size)
{
    printf("%s\n  \"%s\": {\"size\": %zu, \"fields\": {", first_struct ? "{" : ",", name, size);
    first_struct = 0;
    first_field = 1;
}

static void field(const char *name, size_t offset, size_t size)
{
    printf("%s\"%s\": [%zu, %zu]", first_field ? "" : ", ", name, offset, size);
    first_field = 0;
}

static void end(void) { printf("}}"); }

#define BEGIN(type) begin(#type, sizeof(type))
#define FIELD(type, member) field(#member, offsetof(type, member), sizeof(((type *)0)->member))

int main(void)
{
    BEGIN(ks_event);
    FIELD(ks_event, ts_ns);
    FIELD(ks_event, type);
    FIELD(ks_event, buffer);
    FIELD(ks_event, cpu);
    FIELD(ks_event, pid);
    FIELD(ks_event, tgid);
    FIELD(ks_event, comm);
    FIELD(ks_event, u);
    FIELD(ks_event, u.sched_switch.prev_comm);
    FIELD(ks_event, u.sched_switch.prev_pid);
    FIELD(ks_event, u.sched_switch.prev_prio);
    FIELD(ks_event, u.sched_switch.prev_state);
    FIELD(ks_event, u.sched_switch.next_comm);
    FIELD(ks_event, u.sched_switch.next_pid);
    FIELD(ks_event, u.sched_switch.next_prio);
    FIELD(ks_event, u.sched_wakeup.comm);
    FIELD(ks_event, u.sched_wakeup.pid);
    FIELD(ks_event, u.sched_wakeup.prio);
    FIELD(ks_event, u.sched_wakeup.target_cpu);
    FIELD(ks_event, u.sched_migrate_task.comm);
    FIELD(ks_event, u.sched_migrate_task.pid);
    FIELD(ks_event, u.sched_migrate_task.prio);
    FIELD(ks_event, u.sched_migrate_task.orig_cpu);
    FIELD(ks_event, u.sched_migrate_task.dest_cpu);
    FIELD(ks_event, u.sched_process_fork.parent_comm);
    FIELD(ks_event, u.sched_process_fork.parent_pid);
    FIELD(ks_event, u.sched_process_fork.child_comm);
    FIELD(ks_event, u.sched_process_fork.child_pid);
    FIELD(ks_event, u.sched_process_exit.comm);
    FIELD(ks_event, u.sched_process_exit.pid);
    FIELD(ks_event, u.sched_process_exit.prio);
    FIELD(ks_event, u.sched_process_exit.group_dead);
    FIELD(ks_event, u.rseq_update.cpu_id);
    FIELD(ks_event, u.rseq_update.node_id);
    FIELD(ks_event, u.rseq_update.mm_cid);
    FIELD(ks_event, u.generic.name_off);
    FIELD(ks_event, u.generic.fields_off);
    FIELD(ks_event, u.raw);
    end();
    BEGIN(ks_sim_cpu);
    FIELD(ks_sim_cpu, cpu);
    FIELD(ks_sim_cpu, curr_tid);
    FIELD(ks_sim_cpu, nr_running);
    FIELD(ks_sim_cpu, rq_offset);
    FIELD(ks_sim_cpu, busy_ns);
    end();
    BEGIN(ks_sim_task);
    FIELD(ks_sim_task, tid);
    FIELD(ks_sim_task, tgid);
    FIELD(ks_sim_task, cpu);
    FIELD(ks_sim_task, state);
    FIELD(ks_sim_task, policy);
    FIELD(ks_sim_task, prio);
    FIELD(ks_sim_task, nr_cpus_allowed);
    FIELD(ks_sim_task, mm_cid);
    FIELD(ks_sim_task, vruntime_ns);
    FIELD(ks_sim_task, sum_exec_ns);
    FIELD(ks_sim_task, comm);
    end();
    BEGIN(ks_sim_frame);
    FIELD(ks_sim_frame, now_ns);
    FIELD(ks_sim_frame, step);
    FIELD(ks_sim_frame, nr_cpus);
    FIELD(ks_sim_frame, nr_tasks);
    FIELD(ks_sim_frame, nr_rq_tids);
    FIELD(ks_sim_frame, reserved);
    FIELD(ks_sim_frame, cpus_off);
    FIELD(ks_sim_frame, tasks_off);
    FIELD(ks_sim_frame, rq_tids_off);
    FIELD(ks_sim_frame, size);
    end();
    BEGIN(ks_sim_stats);
    FIELD(ks_sim_stats, now_ns);
    FIELD(ks_sim_stats, events);
    FIELD(ks_sim_stats, events_by_type);
    FIELD(ks_sim_stats, access_ns);
    FIELD(ks_sim_stats, lines_from);
    FIELD(ks_sim_stats, local_hitm);
    FIELD(ks_sim_stats, remote_hitm);
    end();
    BEGIN(ks_run_limit);
    FIELD(ks_run_limit, until_ns);
    FIELD(ks_run_limit, type_mask);
    FIELD(ks_run_limit, tid);
    FIELD(ks_run_limit, max_events);
    FIELD(ks_run_limit, reserved);
    end();
    BEGIN(ks_burst_cost);
    FIELD(ks_burst_cost, ts_ns);
    FIELD(ks_burst_cost, tid);
    FIELD(ks_burst_cost, cpu);
    FIELD(ks_burst_cost, index);
    FIELD(ks_burst_cost, flags);
    FIELD(ks_burst_cost, cost_ns);
    end();
    /* native ABI (the algo pointer is 8 bytes here, 4 in wasm32) */
    BEGIN(ks_sim_config);
    FIELD(ks_sim_config, seed);
    FIELD(ks_sim_config, algo);
    FIELD(ks_sim_config, cache);
    end();
    BEGIN(ks_parse_error);
    FIELD(ks_parse_error, line);
    FIELD(ks_parse_error, column_or_field);
    FIELD(ks_parse_error, field);
    FIELD(ks_parse_error, message);
    end();
    BEGIN(ks_cache_params);
    FIELD(ks_cache_params, private_background_bytes_per_us);
    FIELD(ks_cache_params, llc_background_bytes_per_us);
    FIELD(ks_cache_params, track_words);
    FIELD(ks_cache_params, reserved);
    end();
    BEGIN(ks_latency_table);
    FIELD(ks_latency_table, core_mhz);
    FIELD(ks_latency_table, cycles);
    end();
    BEGIN(ks_access_cost);
    FIELD(ks_access_cost, cycles);
    FIELD(ks_access_cost, ns);
    FIELD(ks_access_cost, lines);
    FIELD(ks_access_cost, lines_from);
    FIELD(ks_access_cost, local_hitm);
    FIELD(ks_access_cost, remote_hitm);
    FIELD(ks_access_cost, reserved);
    end();
    BEGIN(ks_cost_cstate);
    FIELD(ks_cost_cstate, name);
    FIELD(ks_cost_cstate, exit_ns);
    FIELD(ks_cost_cstate, residency_ns);
    FIELD(ks_cost_cstate, flushes_private);
    FIELD(ks_cost_cstate, flushes_tlb);
    end();
    BEGIN(ks_cost_params);
    FIELD(ks_cost_params, latency);
    FIELD(ks_cost_params, demand_mlp);
    FIELD(ks_cost_params, prefetch_mlp);
    FIELD(ks_cost_params, prefetch_trigger_lines);
    FIELD(ks_cost_params, page_bytes);
    FIELD(ks_cost_params, sweep_cycles_per_line);
    FIELD(ks_cost_params, stlb_entries);
    FIELD(ks_cost_params, walk_levels);
    FIELD(ks_cost_params, walk_ns_measured);
    FIELD(ks_cost_params, fabric_gbps_per_llc);
    FIELD(ks_cost_params, dram_gbps_per_socket);
    FIELD(ks_cost_params, l1_bytes);
    FIELD(ks_cost_params, l2_bytes);
    FIELD(ks_cost_params, l3_bytes);
    FIELD(ks_cost_params, n_cstates);
    FIELD(ks_cost_params, cstates);
    FIELD(ks_cost_params, first_touch_ns_per_page);
    FIELD(ks_cost_params, reserved);
    end();
    BEGIN(ks_cost_lines);
    FIELD(ks_cost_lines, lines);
    FIELD(ks_cost_lines, where);
    FIELD(ks_cost_lines, state);
    FIELD(ks_cost_lines, home_remote);
    FIELD(ks_cost_lines, age_ns);
    FIELD(ks_cost_lines, holder_idle_ns);
    end();
    BEGIN(ks_cost_sweep);
    FIELD(ks_cost_sweep, order);
    FIELD(ks_cost_sweep, is_store);
    FIELD(ks_cost_sweep, page_offset);
    FIELD(ks_cost_sweep, wake_in_burst);
    FIELD(ks_cost_sweep, background_private_bytes_per_us);
    FIELD(ks_cost_sweep, background_llc_bytes_per_us);
    FIELD(ks_cost_sweep, streams_per_llc);
    FIELD(ks_cost_sweep, streams_per_socket);
    FIELD(ks_cost_sweep, idle_ns);
    FIELD(ks_cost_sweep, since_own_touch_ns);
    FIELD(ks_cost_sweep, n_groups);
    FIELD(ks_cost_sweep, first_touch_pages);
    FIELD(ks_cost_sweep, groups);
    end();
    BEGIN(ks_cost_result);
    FIELD(ks_cost_result, total_ns);
    FIELD(ks_cost_result, part_ns);
    FIELD(ks_cost_result, serial_ns);
    FIELD(ks_cost_result, overlap_saved_ns);
    FIELD(ks_cost_result, lines);
    FIELD(ks_cost_result, lines_from);
    FIELD(ks_cost_result, lines_rfo);
    FIELD(ks_cost_result, lines_prefetched);
    FIELD(ks_cost_result, lines_idle_flushed);
    FIELD(ks_cost_result, lines_capacity_evicted);
    FIELD(ks_cost_result, hitm);
    FIELD(ks_cost_result, pages);
    FIELD(ks_cost_result, pages_walked);
    FIELD(ks_cost_result, pages_faulted);
    FIELD(ks_cost_result, reserved);
    FIELD(ks_cost_result, cstate);
    FIELD(ks_cost_result, bound);
    end();
    BEGIN(ks_cost_parts);
    FIELD(ks_cost_parts, part_ns);
    end();
    BEGIN(ks_line_stats);
    FIELD(ks_line_stats, loads);
    FIELD(ks_line_stats, stores);
    FIELD(ks_line_stats, local_hitm);
    FIELD(ks_line_stats, remote_hitm);
    end();
    BEGIN(ks_ftrace_stats);
    FIELD(ks_ftrace_stats, lines);
    FIELD(ks_ftrace_stats, events);
    FIELD(ks_ftrace_stats, generic_events);
    FIELD(ks_ftrace_stats, comment_lines);
    FIELD(ks_ftrace_stats, malformed_lines);
    FIELD(ks_ftrace_stats, lost_events);
    FIELD(ks_ftrace_stats, nr_cpus);
    FIELD(ks_ftrace_stats, format);
    FIELD(ks_ftrace_stats, columns);
    FIELD(ks_ftrace_stats, reserved);
    FIELD(ks_ftrace_stats, first_error);
    end();
    BEGIN(ks_tracedat_stats);
    FIELD(ks_tracedat_stats, events);
    FIELD(ks_tracedat_stats, generic_events);
    FIELD(ks_tracedat_stats, malformed);
    FIELD(ks_tracedat_stats, lost_events);
    FIELD(ks_tracedat_stats, pages);
    FIELD(ks_tracedat_stats, event_formats);
    FIELD(ks_tracedat_stats, nr_cpus);
    FIELD(ks_tracedat_stats, version);
    FIELD(ks_tracedat_stats, long_size);
    FIELD(ks_tracedat_stats, page_size);
    FIELD(ks_tracedat_stats, big_endian);
    FIELD(ks_tracedat_stats, status);
    FIELD(ks_tracedat_stats, error_offset);
    FIELD(ks_tracedat_stats, bytes_fed);
    FIELD(ks_tracedat_stats, skipped_buffers);
    FIELD(ks_tracedat_stats, lost_pages);
    FIELD(ks_tracedat_stats, uname);
    FIELD(ks_tracedat_stats, trace_clock);
    FIELD(ks_tracedat_stats, first_error);
    end();
    BEGIN(ks_trace_stats);
    FIELD(ks_trace_stats, format);
    FIELD(ks_trace_stats, status);
    FIELD(ks_trace_stats, events);
    FIELD(ks_trace_stats, generic_events);
    FIELD(ks_trace_stats, malformed);
    FIELD(ks_trace_stats, lost_events);
    FIELD(ks_trace_stats, nr_cpus);
    FIELD(ks_trace_stats, lines);
    FIELD(ks_trace_stats, bytes_fed);
    FIELD(ks_trace_stats, error_offset);
    FIELD(ks_trace_stats, first_error);
    end();
    BEGIN(ks_perf_stats);
    FIELD(ks_perf_stats, lines);
    FIELD(ks_perf_stats, events);
    FIELD(ks_perf_stats, generic_events);
    FIELD(ks_perf_stats, samples);
    FIELD(ks_perf_stats, comment_lines);
    FIELD(ks_perf_stats, malformed_lines);
    FIELD(ks_perf_stats, frame_lines);
    FIELD(ks_perf_stats, nr_cpus);
    FIELD(ks_perf_stats, format);
    FIELD(ks_perf_stats, columns);
    FIELD(ks_perf_stats, status);
    FIELD(ks_perf_stats, reserved);
    FIELD(ks_perf_stats, first_error);
    end();
    BEGIN(ks_systrace_stats);
    FIELD(ks_systrace_stats, ftrace);
    FIELD(ks_systrace_stats, text_blocks);
    FIELD(ks_systrace_stats, json_blocks);
    FIELD(ks_systrace_stats, first_text_line);
    FIELD(ks_systrace_stats, html_lines);
    end();
#include "mm_cid/layout.inc"                /* registry: the models' structs (tools/layout/<name>/) */
#include "cpupri/layout.inc"                /* registry: the models' structs (tools/layout/<name>/) */
    BEGIN(ks_cpu);
    FIELD(ks_cpu, cpu);
    FIELD(ks_cpu, core);
    FIELD(ks_cpu, llc);
    FIELD(ks_cpu, node);
    FIELD(ks_cpu, socket);
    FIELD(ks_cpu, smt_index);
    end();
    BEGIN(ks_topology_summary);
    FIELD(ks_topology_summary, cpus);
    FIELD(ks_topology_summary, cores);
    FIELD(ks_topology_summary, llcs);
    FIELD(ks_topology_summary, nodes);
    FIELD(ks_topology_summary, sockets);
    FIELD(ks_topology_summary, threads_per_core);
    FIELD(ks_topology_summary, l1d_kib);
    FIELD(ks_topology_summary, l2_kib);
    FIELD(ks_topology_summary, l3_kib);
    end();
    printf("\n}\n");
    return 0;
}
