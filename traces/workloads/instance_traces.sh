#!/bin/sh
# Records a short sleep workload into a tracefs instance buffer "ksgold" (with "top": the
# top buffer as well) and writes it as trace.dat v7 uncompressed, v7 zstd and v6:
#   OUT.v7.dat  OUT.v7-zstd.dat  OUT.v6.dat
# usage (as root, tracefs mounted at /sys/kernel/tracing): instance_traces.sh instance|top OUT
#
# `trace-cmd record` stops with "Can't enable ftrace" on this machine, so tracing is set up
# by hand and written with `trace-cmd extract -B ksgold [-t]` (which removes the instance).
# To keep the files small, extract runs in a private mount namespace where /proc/kallsyms
# is its first 300 lines and tracefs events/ holds only the sched and ftrace formats.
set -eu
if [ "${KSGOLD_INNER:-}" != 1 ]; then
    W=$(mktemp -d)
    T=/sys/kernel/tracing
    head -c 20000 /proc/kallsyms | head -n 300 > $W/kallsyms
    mkdir $W/events
    cp $T/events/header_page $T/events/header_event $W/events/
    for s in sched ftrace; do
        for d in $T/events/$s/*/; do
            [ -f $d/format ] || continue
            mkdir -p $W/events/$s/$(basename $d)
            cat $d/format > $W/events/$s/$(basename $d)/format
        done
    done
    KSGOLD_INNER=1 KSGOLD_DIR=$W unshare -m sh "$0" "$@"
    rm -rf $W
    exit 0
fi
T=/sys/kernel/tracing
I=$T/instances/ksgold
MODE=$1
OUT=$2
EVENTS="sched:sched_switch sched:sched_wakeup sched:sched_wakeup_new sched:sched_process_fork sched:sched_process_exit"
mount --bind $KSGOLD_DIR/kallsyms /proc/kallsyms
[ -d $I ] || mkdir $I
prepare() {  # $1: a buffer directory; $2: its events
    echo 0 > $1/tracing_on
    echo > $1/set_event
    echo 1 > $1/options/event-fork
    echo $$ > $1/set_event_pid
    for e in $2; do echo $e >> $1/set_event; done
    echo > $1/trace
}
prepare $I "$EVENTS"
if [ "$MODE" = top ]; then prepare $T "sched:sched_switch sched:sched_process_exit"; fi
echo 1 > $I/tracing_on
if [ "$MODE" = top ]; then echo 1 > $T/tracing_on; fi
sleep 0.02; taskset -c 0 /bin/sleep 0.01; taskset -c 1 /bin/sleep 0.01; /bin/true
echo 0 > $I/tracing_on
echo 0 > $T/tracing_on
mount --bind $KSGOLD_DIR/events $T/events
TOP=""; if [ "$MODE" = top ]; then TOP=-t; fi
trace-cmd extract -B ksgold $TOP --compression none -o $OUT.v7.dat >/dev/null 2>&1
umount $T/events
trace-cmd convert -i $OUT.v7.dat --file-version 7 --compression zstd -o $OUT.v7-zstd.dat >/dev/null 2>&1
trace-cmd convert -i $OUT.v7.dat --file-version 6 -o $OUT.v6.dat >/dev/null 2>&1
if [ -d $I ]; then echo > $I/set_event; echo > $I/set_event_pid; rmdir $I; fi
echo > $T/set_event; echo > $T/set_event_pid; echo 0 > $T/options/event-fork
