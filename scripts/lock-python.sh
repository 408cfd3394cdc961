#!/bin/sh
# Writes backend/requirements.lock: every Python package the backend and its tests need
# (pyproject's dependencies + the [test] extra, and all they pull in), pinned with == and
# sha256 hashes, for Python 3.11 on Linux. scripts/setup.sh installs exactly that
# (pip --require-hashes), then the backend itself with --no-deps.
#
#   npm run lock:python                    # after editing backend/pyproject.toml
#   npm run lock:python -- --upgrade       # move every pin to the newest release
#   npm run lock:python -- -P numpy        # move one package only
#
# pip-tools runs from its own venv (.kscope/piptools), so it is not in the backend's.
# Resolving and hashing asks PyPI about every package: a few minutes.
set -eu
cd "$(dirname "$0")/.."
tools=.kscope/piptools
[ -x "$tools/bin/pip-compile" ] || {
    python3 -m venv "$tools"
    "$tools/bin/pip" install -q --disable-pip-version-check 'pip-tools==7.6.2'
}
cd backend
# --no-emit-find-links: a machine's own PIP_FIND_LINKS does not belong in the lock.
"../$tools/bin/pip-compile" --quiet --generate-hashes --allow-unsafe --strip-extras \
    --extra test --no-emit-index-url --no-emit-find-links \
    --custom-compile-command 'npm run lock:python' \
    -o requirements.lock "$@" pyproject.toml
echo "lock-python: backend/requirements.lock has $(grep -c '^[a-zA-Z0-9].*==' requirements.lock) pinned packages" >&2
