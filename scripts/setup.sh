#!/bin/sh
# kscope set-up: everything `npm start` and `npm test` need, on a fresh Debian 12
# machine as root. POSIX sh only (nothing else exists yet). Idempotent: each step
# checks before it acts, so a second run with everything present takes < 5 s.
#
#   1. Debian packages (apt-get as root; otherwise print the command and stop):
#      gcc/make, emscripten, chromium, python3-venv, postgresql (for the store tests),
#      qemu-system-x86, busybox-static, libc6-dev (for the VM capture test),
#      libzstd-dev (compressed trace.dat; the wasm build compiles zstd from PyPI sources, 3b)
#      redis-server (for the rooms tests)
#      clang-14, libclang-rt-14-dev (libFuzzer + sanitizers: the fuzz targets)
#   2. npm packages        (npm ci when package-lock.json changed)
#   3. the Python venv     (.venv: backend/requirements.lock, then the backend editable,
#                           when pyproject or the lock changed)
#   4. the C core          (make: native lib + tests, wasm module + tests)
#   5. the frontend        (vite build when its sources are newer than dist/)
set -eu

cd "$(dirname "$0")/.."
root=$(pwd)
stamps="$root/.kscope/stamps"
mkdir -p "$stamps"

say() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# --- 1. Debian packages -------------------------------------------------------
missing=""
command -v gcc >/dev/null 2>&1 || missing="$missing build-essential"
command -v make >/dev/null 2>&1 || case "$missing" in *build-essential*) ;; *) missing="$missing make" ;; esac
command -v emcc >/dev/null 2>&1 || missing="$missing emscripten"
[ -x /usr/bin/chromium ] || missing="$missing chromium"
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing="$missing python3-venv"
# The store tests run a real PostgreSQL server (a private cluster, scripts/pg-test-cluster.sh).
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$missing postgresql"
# The VM capture test boots Debian's 6.12 kernel under QEMU with a static busybox initramfs
# and statically linked workloads (glibc's static libc is in libc6-dev).
command -v qemu-system-x86_64 >/dev/null 2>&1 || missing="$missing qemu-system-x86"
dpkg -s busybox-static >/dev/null 2>&1 || missing="$missing busybox-static"
[ -f /usr/lib/x86_64-linux-gnu/libc.a ] || missing="$missing libc6-dev"
# Compressed trace.dat v7: the native core links Debian's libzstd.
[ -f /usr/include/zstd.h ] || missing="$missing libzstd-dev"
# The rooms tests and `kscope bench rooms --backends 2` run a private redis-server.
command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
# The fuzz targets (wasm-core/fuzz, `npm run fuzz`, their smoke in `npm test`) build with
# clang-14 (emscripten pulls it in too) and its libFuzzer/ASan/UBSan runtimes, which
# Debian 12 ships apart, in libclang-rt-14-dev (clang-14 itself does not depend on it).
command -v clang-14 >/dev/null 2>&1 || missing="$missing clang-14"
ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 \
    || missing="$missing libclang-rt-14-dev"
if [ -n "$missing" ]; then
    cmd="apt-get update && apt-get -o DPkg::Lock::Timeout=900 install -y$missing"
    if [ "$(id -u)" != 0 ]; then
        die "missing Debian packages:$missing. Run as root: $cmd"
    fi
    say "installing Debian packages:$missing (about a minute)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=900 update -qq >&2
    # shellcheck disable=SC2086
    apt-get -o DPkg::Lock::Timeout=900 install -y -qq $missing >&2 \
        || die "apt-get install failed for:$missing"
fi

# Prints a checksum of the given files (POSIX cksum), for change detection.
sum_of() { cat "$@" | cksum | cut -d' ' -f1; }

# Runs "$@" only when the checksum of $stamp's inputs changed since the last success.
# usage: when_changed NAME "INPUT FILES" COMMAND...
when_changed() {
    name=$1; inputs=$2; shift 2
    # shellcheck disable=SC2086
    now=$(sum_of $inputs)
    if [ -f "$stamps/$name" ] && [ "$(cat "$stamps/$name")" = "$now" ]; then
        return 0
    fi
    "$@"
    echo "$now" > "$stamps/$name"
}

# --- 2. npm packages ------------------------------------------------------------
npm_install() {
    say "installing npm packages (npm ci)"
    npm ci --no-audit --no-fund --loglevel=error >&2 || die "npm ci failed"
}
[ -d node_modules ] || rm -f "$stamps/npm"
when_changed npm "package-lock.json" npm_install

# --- 3. Python venv -------------------------------------------------------------
venv_install() {
    say "creating the Python venv (.venv) and installing the backend"
    [ -x .venv/bin/python ] || python3 -m venv .venv >&2 || die "python3 -m venv failed"
    # Exactly the locked versions (== pins, sha256 hashes; `npm run lock:python` writes the
    # lock from pyproject.toml), then the backend itself without resolving anything again.
    .venv/bin/pip install -q --disable-pip-version-check --require-hashes \
        -r backend/requirements.lock >&2 \
        || die "pip install -r backend/requirements.lock failed"
    .venv/bin/pip install -q --disable-pip-version-check --no-deps -e backend >&2 \
        || die "pip install of backend/ failed"
}
[ -x .venv/bin/kscope ] || rm -f "$stamps/venv"
when_changed venv "backend/pyproject.toml backend/requirements.lock" venv_install
# The backend's bytecode, as pip writes it for an installed package (an editable install
# gets none). Without it every `kscope` process compiles its modules again: ~0.07 s of a
# `kscope ingest` here, where PYTHONDONTWRITEBYTECODE=1 stops Python caching them itself.
# Incremental: only changed modules are compiled.
.venv/bin/python -m compileall -q backend/kscope >/dev/null || die "compiling backend/kscope failed"

# --- 3b. zstd sources for the wasm build (a sha256-pinned PyPI sdist, cached in .kscope/vendor)
sh scripts/fetch-zstd-src.sh || die "fetching the zstd sources failed (scripts/fetch-zstd-src.sh)"

# --- 4. the C core, both builds (make is incremental) -----------------------------
make -s -C wasm-core all >&2 || die "building wasm-core failed (make -C wasm-core all)"

# --- 5. the frontend --------------------------------------------------------------
dist=frontend/dist/index.html
if [ ! -f "$dist" ] || [ -n "$(find frontend/src frontend/public frontend/index.html \
        frontend/vite.config.ts frontend/package.json frontend/tsconfig*.json \
        wasm-core/build/wasm/kscope_core.mjs wasm-core/build/wasm/kscope_core.wasm \
        -newer "$dist" 2>/dev/null | head -n 1)" ]; then
    say "building the frontend (vite build)"
    npm run -s -w frontend build >&2 || die "frontend build failed (npm run -w frontend build)"
fi

# --- 6. done: scripts/kscope (the CLI launcher) skips set-up while nothing below is newer
touch "$stamps/setup-complete"
