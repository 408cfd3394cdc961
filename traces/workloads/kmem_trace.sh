#!/bin/sh
# Records kmem:kmem_cache_alloc and kmem:kmem_cache_free of a short workload (ls, cat,
# limited to this script's process and its children) into a tracefs instance buffer
# "kskmem" only, and writes it as trace.dat v7 uncompressed: OUT
# usage (as root, tracefs mounted at /sys/kernel/tracing): kmem_trace.sh OUT
#
# As instance_traces.sh: set up by hand, written with `trace-cmd extract -B kskmem`
# (which removes the instance), in a private mount namespace where /proc/kallsyms is its
# first 300 lines and tracefs events/ holds only the kmem_cache_* and ftrace formats. The top buffer is not
# touched.
set -eu
if [ "${KSKMEM_INNER:-}" != 1 ]; then
    W=$(mktemp -d)
    T=/sys/kernel/tracing
    head -c 20000 /proc/kallsyms | head -n 300 > $W/kallsyms
    mkdir $W/events
    cp $T/events/header_page $T/events/header_event $W/events/
    for d in $T/events/kmem/kmem_cache_alloc/ $T/events/kmem/kmem_cache_free/ $T/events/ftrace/*/; do
        [ -f $d/format ] || continue
        s=$(basename $(dirname $d))
        mkdir -p $W/events/$s/$(basename $d)
        cat $d/format > $W/events/$s/$(basename $d)/format
    done
    KSKMEM_INNER=1 KSKMEM_DIR=$W unshare -m sh "$0" "$@"
    rm -rf $W
    exit 0
fi
T=/sys/kernel/tracing
I=$T/instances/kskmem
OUT=$1
mount --bind $KSKMEM_DIR/kallsyms /proc/kallsyms
[ -d $I ] || mkdir $I
echo 0 > $I/tracing_on
echo 1 > $I/options/event-fork
echo $$ > $I/set_event_pid
echo kmem:kmem_cache_alloc > $I/set_event
echo kmem:kmem_cache_free >> $I/set_event
echo > $I/trace
echo 1 > $I/tracing_on
/bin/ls / > /dev/null; /bin/cat /proc/self/status > /dev/null
echo 0 > $I/tracing_on
mount --bind $KSKMEM_DIR/events $T/events
trace-cmd extract -B kskmem --compression none -o $OUT >/dev/null 2>&1
umount $T/events
if [ -d $I ]; then echo > $I/set_event; echo > $I/set_event_pid; rmdir $I; fi
