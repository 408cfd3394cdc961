#!/bin/sh
# The zstd library sources the wasm builds of wasm-core compile (the native build links
# Debian's libzstd instead; wasm-core/src/trace/README.md says why). They come from a
# pinned PyPI sdist, `zstandard` 0.25.0, which ships zstd 1.5.7 as one file (zstd/zstd.c,
# zstd's own single-file amalgamation, made to build under Emscripten), checked by sha256.
# Result: .kscope/vendor/zstd-src/{zstd.c,zstd.h,zstd_errors.h,LICENSE,COPYING}.
# Idempotent: does nothing when that is there and came from the pinned sdist.
# Called by scripts/setup.sh and by wasm-core/Makefile (when the directory is missing).
set -eu

cd "$(dirname "$0")/.."
version=0.25.0
sha256=7713e1179d162cf5c7906da876ec2ccb9c3a9dcbdffef0cc7f70c3667a205f0b
vendor=.kscope/vendor
dest=$vendor/zstd-src
sdist=$vendor/zstandard-$version.tar.gz

die() { printf 'fetch-zstd-src: error: %s\n' "$*" >&2; exit 1; }

if [ -f "$dest/zstd.c" ] && [ "$(cat "$dest/.from" 2>/dev/null)" = "$sha256" ]; then
    exit 0
fi
mkdir -p "$vendor"
if [ ! -f "$sdist" ] || ! printf '%s  %s\n' "$sha256" "$sdist" | sha256sum -c - >/dev/null 2>&1; then
    py=.venv/bin/python
    [ -x "$py" ] || py=python3
    printf 'fetch-zstd-src: downloading zstandard==%s (sdist) from PyPI (about 40 s)\n' "$version" >&2
    tmp=$(mktemp -d)
    # pip prepares the sdist's metadata in an isolated build env (setuptools, cffi wheels):
    # that is most of the time; nothing is built or installed.
    "$py" -m pip download --quiet --disable-pip-version-check --no-deps --no-binary zstandard \
        "zstandard==$version" -d "$tmp" >&2 || { rm -rf "$tmp"; die "pip download zstandard==$version failed"; }
    mv "$tmp/zstandard-$version.tar.gz" "$sdist"
    rm -rf "$tmp"
fi
printf '%s  %s\n' "$sha256" "$sdist" | sha256sum -c - >/dev/null 2>&1 \
    || { rm -f "$sdist"; die "$sdist does not have the pinned sha256 $sha256"; }
rm -rf "$dest" "$dest.tmp"
mkdir -p "$dest.tmp"
for f in zstd.c zstd.h zstd_errors.h LICENSE COPYING; do
    tar -xzf "$sdist" -O "zstandard-$version/zstd/$f" > "$dest.tmp/$f" || die "$sdist has no zstd/$f"
done
echo "$sha256" > "$dest.tmp/.from"
mv "$dest.tmp" "$dest"
printf 'fetch-zstd-src: zstd sources in %s\n' "$dest" >&2
