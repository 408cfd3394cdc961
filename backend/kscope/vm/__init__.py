"""`kscope capture-vm`: record a real kernel's scheduler events inside a QEMU guest.

The guest is a stock distribution kernel (Debian's 6.12 today; kscope's own
patched kernels later) booted with a chosen CPU and NUMA shape, an initramfs
of busybox plus kscope's statically linked workloads, and an init script that
enables the tracepoints, runs one workload, and sends the trace and the
guest's CPU topology back on a serial port. The host writes them as a
`kscope capture` file (ftrace text after a `# kscope:` header), so everything
that reads captures reads these.

    deps.py        find qemu, busybox and the guest kernel (apt, into .kscope/vm/)
    workloads/     the C workloads, one file each, and workloads.py to build them
    initramfs.py   a newc cpio writer (no `cpio` binary needed)
    guest.py       the guest's /init script
    qemu.py        the QEMU command line (-smp/-numa), boot with KVM else TCG, timeouts
    serial.py      cut the BEGIN/END sections out of a serial log
    capture_vm.py  the whole capture, as one function the CLI calls
"""
