"""What a VM capture needs on the host, found or installed (as root) with apt.

    qemu-system-x86_64   apt: qemu-system-x86
    busybox (static)     apt: busybox-static
    gcc + static glibc   apt: gcc libc6-dev
    the guest kernel     Debian's linux-image-6.12.*-amd64, NOT installed: `apt-get download`
                         and `dpkg-deb --fsys-tarfile` unpack only boot/vmlinuz-* and
                         boot/config-* into <cache>/kernel/, so the host's /boot, initramfs
                         hooks and bootloader are never touched.

Without root, or without apt, `MissingTool` carries the exact command to run.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

DEBIAN_KERNEL_META = "linux-image-6.12-amd64"  # depends on the current linux-image-6.12.N+deb12-amd64


class MissingTool(RuntimeError):
    """Something the VM capture needs is absent and was not installed; .command says how."""

    def __init__(self, what: str, command: str) -> None:
        super().__init__(f"{what} is not available; install it with:\n    {command}")
        self.command = command


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _apt_install(packages: list[str], log: list[str]) -> bool:
    if not (_is_root() and shutil.which("apt-get")):
        return False
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    log.append(f"apt-get install -y --no-install-recommends {' '.join(packages)}")
    done = subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", *packages],
                          capture_output=True, text=True, env=env)
    return done.returncode == 0


def _ensure(binary_ok, package: str, what: str, log: list[str], install: bool) -> None:  # type: ignore[no-untyped-def]
    if binary_ok():
        return
    if install and _apt_install([package], log) and binary_ok():
        return
    raise MissingTool(what, f"sudo apt-get install -y --no-install-recommends {package}")


def find_busybox() -> Path | None:
    """A statically linked busybox (the guest has no libc of its own)."""
    for candidate in ("/bin/busybox", "/usr/bin/busybox"):
        path = Path(candidate)
        if path.is_file() and _is_static(path):
            return path
    return None


def _is_static(path: Path) -> bool:
    with open(path, "rb") as f:
        head = f.read(1 << 16)
    return head[:4] == b"\x7fELF" and b"/lib64/ld-linux" not in head and b"ld-linux-x86-64" not in head


def ensure_host_tools(install: bool, log: list[str]) -> Path:
    """qemu, static busybox and gcc with static glibc; returns busybox's path."""
    _ensure(lambda: shutil.which("qemu-system-x86_64"), "qemu-system-x86", "QEMU (qemu-system-x86_64)",
            log, install)
    _ensure(find_busybox, "busybox-static", "a static busybox", log, install)
    _ensure(lambda: shutil.which("gcc") and Path("/usr/lib/x86_64-linux-gnu/libc.a").is_file(),
            "gcc libc6-dev", "gcc with static glibc (libc.a)", log, install)
    busybox = find_busybox()
    assert busybox is not None
    return busybox


def find_debian_kernel(cache: Path) -> Path | None:
    """A Debian 6.12 vmlinuz: unpacked in the cache, else an installed /boot/vmlinuz-6.12*."""
    for root in (cache / "kernel" / "boot", Path("/boot")):
        found = sorted(root.glob("vmlinuz-6.12*"), key=_version_key) if root.is_dir() else []
        found = [p for p in found if os.access(p, os.R_OK)]
        if found:
            return found[-1]
    return None


def _version_key(path: Path) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", path.name)]


def _resolve_image_package() -> str | None:
    done = subprocess.run(["apt-cache", "depends", DEBIAN_KERNEL_META], capture_output=True, text=True)
    match = re.search(r"Depends: (linux-image-6\.12\.\S+-amd64)\b", done.stdout)
    return match.group(1) if match else None


def fetch_debian_kernel(cache: Path, log: list[str]) -> Path:
    """Downloads (not installs) Debian's 6.12 image package and unpacks its vmlinuz into the cache."""
    manual = (f"apt-get download $(apt-cache depends {DEBIAN_KERNEL_META} | sed -n 's/.*Depends: //p') && "
              f"dpkg-deb --fsys-tarfile linux-image-6.12.*.deb | tar -x -C {cache / 'kernel'} "
              f"--wildcards './boot/vmlinuz-*' './boot/config-*'")
    if not (shutil.which("apt-get") and shutil.which("dpkg-deb") and shutil.which("apt-cache")):
        raise MissingTool("Debian's 6.12 kernel image", manual)
    package = _resolve_image_package()
    if package is None:
        hint = " (on Debian 12 it comes from bookworm-backports; run apt-get update first)"
        raise MissingTool(f"the package {DEBIAN_KERNEL_META}{hint}", manual)
    debs = cache / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    log.append(f"apt-get download {package}")
    done = subprocess.run(["apt-get", "download", package], cwd=debs, capture_output=True, text=True)
    found = sorted(debs.glob(f"{package}_*.deb"))
    if done.returncode != 0 or not found:
        raise MissingTool(f"{package} ({done.stderr.strip()[-300:]})", manual)
    (cache / "kernel").mkdir(parents=True, exist_ok=True)
    log.append(f"dpkg-deb --fsys-tarfile {found[-1].name} | tar -x boot/vmlinuz-* boot/config-*")
    tar = subprocess.run(f"dpkg-deb --fsys-tarfile '{found[-1]}' | tar -x -C '{cache / 'kernel'}' "
                         f"--wildcards './boot/vmlinuz-*' './boot/config-*'",
                         shell=True, capture_output=True, text=True)
    kernel = find_debian_kernel(cache)
    if tar.returncode != 0 or kernel is None:
        raise MissingTool(f"a vmlinuz from {found[-1].name} ({tar.stderr.strip()[-300:]})", manual)
    found[-1].unlink()  # 100 MB of modules kscope never boots
    return kernel


def ensure_debian_kernel(cache: Path, install: bool, log: list[str]) -> Path:
    kernel = find_debian_kernel(cache)
    if kernel is not None:
        return kernel
    if not install:
        raise MissingTool("Debian's 6.12 kernel image", f"kscope capture-vm --kernel debian (it fetches "
                          f"{DEBIAN_KERNEL_META} into {cache}/ without installing it)")
    return fetch_debian_kernel(cache, log)
