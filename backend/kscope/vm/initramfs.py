"""A gzip-compressed newc cpio archive, written in Python: the guest's initramfs.

The kernel unpacks "newc" archives (magic 070701): for each member a 110-byte
ASCII header of thirteen 8-digit hex fields, the NUL-terminated name, padding
to 4 bytes, the data, padding to 4 bytes; "TRAILER!!!" ends the archive.
(Documentation/driver-api/early-userspace/buffer-format.rst.) Writing it here
means no `cpio` binary on the host and no root needed for device nodes.
"""

import gzip
import stat
from dataclasses import dataclass, field
from pathlib import Path

MAGIC = b"070701"
TRAILER = "TRAILER!!!"


@dataclass
class Member:
    name: str  # path inside the archive, no leading "/"
    mode: int  # full st_mode: type bits | permission bits
    data: bytes = b""
    rdev: tuple[int, int] = (0, 0)  # device nodes: (major, minor)


@dataclass
class Archive:
    """Members in the order added; parent directories must be added first."""

    members: list[Member] = field(default_factory=list)

    def dir(self, name: str, perm: int = 0o755) -> None:
        self.members.append(Member(name.strip("/"), stat.S_IFDIR | perm))

    def file(self, name: str, data: bytes, perm: int = 0o644) -> None:
        self.members.append(Member(name.strip("/"), stat.S_IFREG | perm, data))

    def symlink(self, name: str, target: str) -> None:
        self.members.append(Member(name.strip("/"), stat.S_IFLNK | 0o777, target.encode()))

    def chardev(self, name: str, major: int, minor: int, perm: int = 0o600) -> None:
        self.members.append(Member(name.strip("/"), stat.S_IFCHR | perm, rdev=(major, minor)))

    def names(self) -> list[str]:
        return [m.name for m in self.members]


def _pad4(n: int) -> bytes:
    return b"\0" * (-n % 4)


def _entry(ino: int, m: Member) -> bytes:
    name = m.name.encode() + b"\0"
    fields = (ino, m.mode, 0, 0, 2 if stat.S_ISDIR(m.mode) else 1, 0, len(m.data),
              0, 0, m.rdev[0], m.rdev[1], len(name), 0)
    header = MAGIC + b"".join(b"%08X" % v for v in fields)
    return header + name + _pad4(len(header) + len(name)) + m.data + _pad4(len(m.data))


def to_cpio(archive: Archive) -> bytes:
    """The uncompressed newc archive."""
    out = [_entry(ino, m) for ino, m in enumerate(archive.members, start=1)]
    out.append(_entry(0, Member(TRAILER, 0)))
    return b"".join(out)


def read_cpio(data: bytes) -> list[Member]:
    """The members of a newc archive (for tests and for checking what was built)."""
    members: list[Member] = []
    pos = 0
    while True:
        header = data[pos:pos + 110]
        if len(header) < 110 or header[:6] != MAGIC:
            raise ValueError(f"not a newc cpio header at byte {pos}")
        f = [int(header[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize, rdev = f[1], f[6], f[11], (f[9], f[10])
        pos += 110
        name = data[pos:pos + namesize - 1].decode()
        pos += namesize + (-(110 + namesize) % 4)
        if name == TRAILER:
            return members
        members.append(Member(name, mode, data[pos:pos + size], rdev))
        pos += size + (-size % 4)


def write_gz(archive: Archive, path: Path) -> Path:
    """Writes the archive gzip-compressed (the kernel's RD_GZIP) to path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(to_cpio(archive), compresslevel=6, mtime=0))
    return path
