"""Building kscope's own guest kernels: Debian's linux-source-6.12 + kernel-patches/ + a small config.

patches.py  which patch files a `--patches` selection means, in a fixed order
source.py   the source package, its unpacked tree, applying/reversing patches in place
config.py   the config fragment (kernel-patches/config/*.config) and its survival check
build.py    `kscope kernel build` end to end, the cache by (version, patches, config)
"""
