/*
 * kscope-ingest: one trace file -> events.parquet + lod.npz in a folder, and a JSON
 * report on stdout. The native half of `kscope ingest` and of POST /api/traces
 * (backend/kscope/ingest/pipeline.py runs it, then adds the metadata row).
 *
 *     kscope-ingest --format ftrace|trace.dat|perf|systrace INPUT OUT_DIR
 *                   [--threads N] [--batch N] [--buffers N] [--zstd LEVEL] [--progress]
 *                   [--parent PID]
 *
 * --batch: records per batch (0 or absent: auto_batch below); --threads: decoder threads
 * for ftrace text (0: auto, decode_producers.h); --buffers: column buffers (the writer
 * writes one while the next is built); --zstd: the Parquet pages' zstd level (3: on the
 * bench's 1 M-event trace as fast as 1, with 1.27 bytes/event stored instead of 1.94).
 *
 * The input is already decompressed and its format detected (the caller names it).
 *
 *     decoder threads (decode_producers) --logs--> this thread: columns, tally
 *         (store_batches, tally) --batches--> writer thread: Parquet row groups
 *     at the end: lod.npz from the switch logs (lod), the report (below)
 *
 * Why a program and not the Python process: `kscope ingest` used to be Python
 * decoding in C through ctypes and writing with pyarrow; interpreter and import
 * start-up alone took ~0.35 s of CPU and ~100 MB before the first byte, a third of
 * the time and most of the memory of a 135 MB ingest (issue 7's figures).
 *
 * Report (one JSON object): format, events, type_counts {type: n}, generic_names
 * {name: n}, cpus [ids], t_first_ns, t_last_ns, tasks, rows, row_groups, events_bytes,
 * --parent PID: die with that process (the server that started this one): a SIGKILL'd
 * server used to leave this program running under PID 1 for seconds, writing into a
 * folder nobody would commit (issue 20, finding 5). See die_with_parent below.
 *
 * decode_threads, decoders [per part: the decoder's stats, as backend/kscope/native's
 * bindings name them]. With --progress, "progress BYTES_DONE EVENTS" lines on stderr.
 * Exit 0 with a report; 1 with "kscope-ingest: <what>" on stderr when the program
 * cannot go on (memory, a write failing); 2 for bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "decode_producers.h"
#include "kscope/ftrace.h"
#include "kscope/perf.h"
#include "kscope/systrace.h"
#include "kscope/trace_detect.h"
#include "kscope/tracedat.h"
#include "json_out.h"
#include "lod.h"
#include "store_batches.h"
#include "tally.h"

typedef struct options {
    const char *format, *input, *out_dir;
    int threads, buffers, zstd, progress;
    long parent;
    uint32_t batch;
} options;

static int usage(void)
{
    fputs("usage: kscope-ingest --format ftrace|trace.dat|perf|systrace INPUT OUT_DIR "
          "[--threads N] [--batch N] [--buffers N] [--zstd LEVEL] [--progress] [--parent PID]\n", stderr);
    return 2;
}

static int parse(int argc, char **argv, options *o)
{
    *o = (options){.batch = 0, .buffers = 2, .zstd = 3};
    int positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--progress")) { o->progress = 1; continue; }
        if (a[0] == '-' && a[1] == '-') {
            if (!v) return -1;
            i++;
            if (!strcmp(a, "--format")) o->format = v;
            else if (!strcmp(a, "--threads")) o->threads = atoi(v);
            else if (!strcmp(a, "--batch")) o->batch = (uint32_t)strtoul(v, NULL, 10);
            else if (!strcmp(a, "--buffers")) o->buffers = atoi(v);
            else if (!strcmp(a, "--zstd")) o->zstd = atoi(v);
            else if (!strcmp(a, "--parent")) o->parent = strtol(v, NULL, 10);
            else return -1;
            continue;
        }
        if (positional == 0) o->input = a;
        else if (positional == 1) o->out_dir = a;
        else return -1;
        positional++;
    }
    return o->format && o->input && o->out_dir ? 0 : -1;
}

/*
 * Records per batch when not given. A batch is the unit of memory in flight (about four
 * decoded logs of 96-byte records and two column buffers of ~120 bytes a row are alive at
 * once) and of the row groups (one per CPU per batch: each costs ~1.4 KiB of footer, which
 * every reader parses). Measured on the bench's hackbench traces (8 CPUs, 134 bytes/event,
 * 2 cores): 32 Ki records peaked at 31 MB on a 135 MB input and 54 MB on 1.34 GB; 64 Ki at
 * 51 MB and 79 MB, with half the row groups (opening the 1.34 GB trace's footer: 14 ms
 * instead of 53). So small inputs get the smaller batch and large ones the larger.
 */
static uint32_t auto_batch(uint64_t input_bytes)
{
    return input_bytes < (256ull << 20) ? 1u << 15 : 1u << 16;
}

/* --format names one of the core's decoders (the registry of trace_decoder.h, as the
 * backend's formats.registry() lists them): a format id that decoder reads. */
static int format_of(const char *decoder, int32_t *format)
{
    for (int32_t f = 0; f < KS_TRACE_FORMAT_COUNT; f++) {
        const char *name = ks_trace_format_decoder(f);
        if (name && !strcmp(name, decoder)) {
            *format = f;
            return 0;
        }
    }
    return -1;
}

static int is_tracedat(const producers *p)
{
    const char *name = ks_trace_format_decoder(p->format);
    return name && !strcmp(name, "trace.dat");
}

/*
 * The kernel sends SIGKILL to this process when the thread that forked it exits
 * (PR_SET_PDEATHSIG; the backend's thread waits on this process, so it lives as long).
 * A parent that died before the prctl took effect is caught by getppid() no longer
 * being the PID we were given. Returns 0, or -1 when the parent is already gone.
 */
static int die_with_parent(long parent)
{
    if (parent <= 0)
        return 0;
#ifdef __linux__
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
        return 0;  /* best effort: the server's start-up sweep still removes our folder */
#endif
    return (long)getppid() == parent ? 0 : -1;
}

static int die(const char *what)
{
    fprintf(stderr, "kscope-ingest: %s\n", what);
    return 1;
}

/* ---- the report's decoder stats, named as backend/kscope/native's bindings name them --- */

static void ftrace_stats_json(FILE *out, const ks_ftrace_stats *s)
{
    static const char *formats[] = {"unknown", "tracefs", "trace-cmd"};
    fprintf(out, "{\"format\":\"%s\",\"lines\":%u,\"events\":%u,\"generic_events\":%u,\"comment_lines\":%u,"
            "\"malformed_lines\":%u,\"lost_events\":%u,\"nr_cpus\":%d,\"first_error\":",
            s->format >= 0 && s->format <= 2 ? formats[s->format] : "unknown", s->lines, s->events,
            s->generic_events, s->comment_lines, s->malformed_lines, s->lost_events, s->nr_cpus);
    json_parse_error(out, &s->first_error);
    fputc('}', out);
}

static void decoder_stats_json(FILE *out, const producers *p, int part)
{
    const ks_trace_decoder *dec = p->decoder[part];
    const char *name = ks_trace_decoder_name(dec);
    if (!strcmp(name, "ftrace")) {
        ks_ftrace_stats s;
        ks_trace_decoder_format_stats(dec, &s, sizeof s);
        ftrace_stats_json(out, &s);
    } else if (!strcmp(name, "perf")) {
        static const char *dialects[] = {"unknown", "perf-script", "perf-sched-timehist", "perf-report"};
        ks_perf_stats s;
        ks_trace_decoder_format_stats(dec, &s, sizeof s);
        fprintf(out, "{\"dialect\":\"%s\",\"lines\":%u,\"events\":%u,\"generic_events\":%u,\"samples\":%u,"
                "\"malformed\":%u,\"nr_cpus\":%d,\"status\":%d,\"first_error\":",
                s.format >= 0 && s.format <= 3 ? dialects[s.format] : "unknown", s.lines, s.events,
                s.generic_events, s.samples, s.malformed_lines, s.nr_cpus, s.status);
        json_parse_error(out, &s.first_error);
        fputc('}', out);
    } else if (!strcmp(name, "systrace")) {
        ks_systrace_stats s;
        ks_trace_decoder_format_stats(dec, &s, sizeof s);
        const ks_ftrace_stats *f = &s.ftrace;
        fprintf(out, "{\"lines\":%u,\"events\":%u,\"generic_events\":%u,\"malformed\":%u,\"lost_events\":%u,"
                "\"nr_cpus\":%d,\"text_blocks\":%u,\"json_blocks\":%u,\"html_lines\":%u,\"first_error\":",
                f->lines, f->events, f->generic_events, f->malformed_lines, f->lost_events, f->nr_cpus,
                s.text_blocks, s.json_blocks, s.html_lines);
        json_parse_error(out, &f->first_error);
        fputc('}', out);
    } else {
        ks_tracedat_stats s;
        ks_trace_decoder_format_stats(dec, &s, sizeof s);
        fprintf(out, "{\"events\":%u,\"generic_events\":%u,\"malformed\":%u,\"lost_events\":%u,\"pages\":%u,"
                "\"nr_cpus\":%d,\"version\":%d,\"status\":%d,\"error_offset\":%lld,\"bytes_fed\":%lld,"
                "\"skipped_buffers\":%u,\"uname\":",
                s.events, s.generic_events, s.malformed, s.lost_events, s.pages, s.nr_cpus, s.version,
                s.status, (long long)s.error_offset, (long long)s.bytes_fed, s.skipped_buffers);
        json_string(out, s.uname, (int64_t)strnlen(s.uname, sizeof s.uname));
        fputs(",\"trace_clock\":", out);
        json_string(out, s.trace_clock, (int64_t)strnlen(s.trace_clock, sizeof s.trace_clock));
        fputs(",\"first_error\":", out);
        json_parse_error(out, &s.first_error);
        fputc('}', out);
    }
}

static uint64_t buffer_counts[64];   /* trace.dat: records per trace buffer */

static void report_json(FILE *out, const options *o, const producers *p, const ingest_tally *t,
                        const name_dict *names, ks_pq_writer *pq)
{
    fprintf(out, "{\"format\":");
    json_string(out, o->format, -1);
    if (is_tracedat(p)) {                   /* "buffers": {name: records}, in the file's order */
        const ks_tracedat_decoder *td = ks_trace_decoder_inner(p->decoder[0]);
        fputs(",\"buffers\":{", out);
        int32_t nb = ks_tracedat_decoder_buffer_count(td);
        for (int32_t i = 0; i < nb && i < 64; i++) {
            const char *name = ks_tracedat_decoder_buffer_name(td, i);
            fputs(i ? "," : "", out);
            json_string(out, name, -1);
            fprintf(out, ":%llu", (unsigned long long)buffer_counts[i]);
        }
        fputc('}', out);
    }
    fprintf(out, ",\"events\":%llu,\"type_counts\":{", (unsigned long long)t->events);
    int first = 1;
    for (int i = 0; i < KS_EV_TYPE_COUNT; i++) {
        if (!t->type_counts[i])
            continue;
        fprintf(out, "%s\"%s\":%llu", first ? "" : ",", ks_event_type_name(i), (unsigned long long)t->type_counts[i]);
        first = 0;
    }
    fputs("},\"generic_names\":{", out);
    for (uint32_t id = 0; id < names->names.count; id++) {
        if (id)
            fputc(',', out);
        json_string(out, names->names.bytes + names->names.offsets[id],
                    names->names.offsets[id + 1] - names->names.offsets[id]);
        fprintf(out, ":%llu", (unsigned long long)names->counts[id]);
    }
    fputs("},\"cpus\":[", out);
    int32_t *cpus = malloc((t->n_cpus ? t->n_cpus : 1) * sizeof *cpus);
    if (cpus) {
        tally_sorted_cpus(t, cpus);
        for (uint32_t i = 0; i < t->n_cpus; i++)
            fprintf(out, "%s%d", i ? "," : "", cpus[i]);
        free(cpus);
    }
    fprintf(out, "],\"t_first_ns\":%llu,\"t_last_ns\":%llu,\"tasks\":%llu,\"rows\":%llu,\"row_groups\":%u,"
            "\"events_bytes\":%llu,\"decode_threads\":%d,\"decoders\":[",
            (unsigned long long)t->t_first, (unsigned long long)t->t_last, (unsigned long long)tally_tasks(t),
            (unsigned long long)ks_pq_writer_rows(pq), ks_pq_writer_row_groups(pq),
            (unsigned long long)ks_pq_writer_bytes(pq), p->parts);
    for (int i = 0; i < p->parts; i++) {
        if (i)
            fputc(',', out);
        decoder_stats_json(out, p, i);
    }
    fputs("]}\n", out);
}

int main(int argc, char **argv)
{
    options o;
    int32_t format;
    if (parse(argc, argv, &o) != 0 || format_of(o.format, &format) != 0)
        return usage();
    if (die_with_parent(o.parent) != 0) {
        fprintf(stderr, "kscope-ingest: parent process %ld is gone; not starting\n", o.parent);
        return 1;
    }
    int fd = open(o.input, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        fprintf(stderr, "kscope-ingest: %s: %s\n", o.input, strerror(errno));
        return 1;
    }
    char events_path[4096], lod_path[4096];
    snprintf(events_path, sizeof events_path, "%s/events.parquet", o.out_dir);
    snprintf(lod_path, sizeof lod_path, "%s/lod.npz", o.out_dir);

    if (o.batch == 0)
        o.batch = auto_batch((uint64_t)st.st_size);
    producers p;
    store_writer w;
    ingest_tally t;
    name_dict names;
    ks_comm_dict *comms = NULL;
    if (producers_open(&p, format, fd, (uint64_t)st.st_size, o.threads, o.batch) != 0 || tally_init(&t) != 0 ||
        name_dict_init(&names) != 0 || ks_comm_dict_new(&comms) != KS_OK)
        return die("out of memory setting up");
    if (store_writer_open(&w, events_path, o.buffers, o.zstd) != KS_OK)
        return die(w.error[0] ? w.error : "cannot open events.parquet");
    if (producers_start(&p) != 0)
        return die("cannot start the decoder threads");

    uint64_t done[MAX_PARTS] = {0};
    memset(buffer_counts, 0, sizeof buffer_counts);
    handed_log item;
    int32_t failed = KS_OK;
    const char *failed_what = NULL;
    while (producers_next(&p, &item)) {
        done[item.part] = item.bytes_done;
        if (ks_event_log_count(item.log) && failed == KS_OK) {
            if (is_tracedat(&p) && t.events == 0) {  /* the header is read: buffers known */
                const ks_tracedat_decoder *td = ks_trace_decoder_inner(p.decoder[0]);
                const char *bnames[64];
                int32_t nb = ks_tracedat_decoder_buffer_count(td);
                for (int32_t i = 0; i < nb && i < 64; i++)
                    bnames[i] = ks_tracedat_decoder_buffer_name(td, i);
                store_writer_set_buffers(&w, bnames, nb < 64 ? nb : 64);
            }
            if (is_tracedat(&p)) {
                const ks_event *ev = ks_event_log_data(item.log);
                for (uint32_t i = 0, n = ks_event_log_count(item.log); i < n; i++)
                    buffer_counts[ev[i].buffer < 64 ? ev[i].buffer : 63]++;
            }
            batch *b = store_writer_acquire(&w);
            if (!b) {
                failed = w.status;
                failed_what = w.error;
            } else if ((failed = batch_build(b, item.log, comms, &names)) != KS_OK) {
                failed_what = "building columns";
            } else if (tally_add(&t, b->buf, b->offsets, b->n, &b->stats) != 0) {
                failed = KS_ERR_NO_MEMORY;
                failed_what = "tallying";
            } else {
                store_writer_submit(&w, b);
            }
            /* Rows per batch: at least 2048 per CPU seen, so many-CPU traces keep sizeable row groups. */
            uint32_t wanted = 2048u * t.n_cpus;
            if (wanted > p.batch)
                p.batch = wanted;
        }
        producers_recycle(&p, item.log);
        if (o.progress) {
            uint64_t sum = 0;
            for (int i = 0; i < p.parts; i++)
                sum += done[i];
            fprintf(stderr, "progress %llu %llu\n", (unsigned long long)sum, (unsigned long long)t.events);
            fflush(stderr);
        }
        if (failed != KS_OK)
            break;
    }
    producers_join(&p);
    if (failed == KS_OK && p.failed_status) {
        failed = p.failed_status;
        failed_what = p.failed_what;
    }
    int32_t closed = store_writer_close(&w);
    if (failed == KS_OK && closed != KS_OK) {
        failed = closed;
        failed_what = w.error;
    }
    if (failed != KS_OK) {
        fprintf(stderr, "kscope-ingest: %s: %s\n", failed_what ? failed_what : "failed", ks_status_message(failed));
        return 1;
    }
    if (o.progress) {
        fputs("summaries\n", stderr);
        fflush(stderr);
    }
    if (lod_write(&t, lod_path) != 0) {
        fprintf(stderr, "kscope-ingest: %s: %s\n", lod_path, errno ? strerror(errno) : "out of memory");
        return 1;
    }
    report_json(stdout, &o, &p, &t, &names, w.pq);
    if (fflush(stdout) != 0)
        return die("writing the report failed");
    store_writer_free(&w);
    producers_close(&p);
    tally_free(&t);
    name_dict_free(&names);
    ks_comm_dict_free(comms);
    close(fd);
    return 0;
}
