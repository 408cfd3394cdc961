"""Compressed inputs: gzip, xz, zstd and zip, recognised by their magic bytes and
decompressed to a file with a size limit and a ratio limit (decompression bombs).

Every error names the input and the byte offset (of the compressed stream) where
it happened.
"""

import gzip
import lzma
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from kscope.core.config import DECOMPRESSION
from kscope.ingest import zip_member

# Read in pieces of this size; the ratio is checked once more than this came out (the
# browser's Open locally does the same: kscope/data/decompression.json).
PIECE = DECOMPRESSION["ratio_checked_after_bytes"]

MAGICS = {bytes.fromhex(magic): kind for kind, magic in DECOMPRESSION["magics"].items()}


class InputError(ValueError):
    """Bad input: the message names the file, the byte offset or line, and the problem."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status  # the HTTP status the API answers with


@dataclass
class Limits:
    max_bytes: int
    max_ratio: int


def compression_of(head: bytes) -> str | None:
    for magic, name in MAGICS.items():
        if head.startswith(magic):
            return name
    return None


class _Counting:
    """A binary file wrapper counting the compressed bytes read (for offsets and ratio)."""

    def __init__(self, f) -> None:  # type: ignore[no-untyped-def]
        self.f = f
        self.pos = 0

    def read(self, n: int = -1) -> bytes:
        data = self.f.read(n)
        self.pos += len(data)
        return data

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # type: ignore[no-untyped-def]
        n = self.f.readinto(b)
        self.pos += n
        return n

    def close(self) -> None:
        pass

    @property
    def closed(self) -> bool:
        return False

    def seekable(self) -> bool:
        return False


def _copy_limited(reader, counter: _Counting, out_path: Path, source: str, kind: str,
                  limits: Limits, base: int = 0) -> int:
    """Copies reader to out_path in PIECE reads, refusing past the size or ratio limit.

    counter.pos: compressed bytes consumed so far (the ratio's denominator); base + counter.pos
    is the byte offset named in messages (base: where the compressed data starts in the file)."""
    written = 0
    with open(out_path, "wb") as out:
        while True:
            try:
                piece = reader.read(PIECE)
            except (OSError, EOFError, lzma.LZMAError, zlib.error, zipfile.BadZipFile) as err:
                raise InputError(f"{source}: byte {base + counter.pos}: corrupt or truncated {kind} data ({err})") from err
            except InputError:
                raise
            except Exception as err:  # zstandard.ZstdError and such
                raise InputError(f"{source}: byte {base + counter.pos}: corrupt or truncated {kind} data ({err})") from err
            if not piece:
                return written
            written += len(piece)
            if written > limits.max_bytes:
                raise InputError(f"{source}: byte {base + counter.pos}: {kind} data decompresses to more than "
                                 f"the {limits.max_bytes} byte limit", status=413)
            if written > PIECE and written > limits.max_ratio * max(counter.pos, 1):
                raise InputError(f"{source}: byte {base + counter.pos}: {kind} data expands more than "
                                 f"{limits.max_ratio}x (a decompression bomb?)", status=413)
            out.write(piece)


def decompress(path: Path, source: str, kind: str, out_path: Path, limits: Limits) -> int:
    """Decompresses path (of the given kind) to out_path; returns the decompressed size."""
    with open(path, "rb") as raw:
        counter = _Counting(raw)
        if kind == "gzip":
            return _copy_limited(gzip.GzipFile(fileobj=counter), counter, out_path, source, kind, limits)
        if kind == "xz":
            return _copy_limited(lzma.LZMAFile(counter), counter, out_path, source, kind, limits)
        if kind == "zstd":
            import zstandard

            reader = zstandard.ZstdDecompressor().stream_reader(counter, read_across_frames=True)
            return _copy_limited(reader, counter, out_path, source, kind, limits)
    if kind == "zip":
        return _unzip(path, source, out_path, limits)
    raise InputError(f"{source}: byte 0: unsupported compression {kind}")


def _unzip(path: Path, source: str, out_path: Path, limits: Limits) -> int:
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile as err:
        raise InputError(f"{source}: byte 0: not a readable zip archive ({err})") from err
    with archive:
        members = [m for m in archive.infolist() if not m.is_dir()]
    if len(members) != 1:
        names = ", ".join(m.filename for m in members[:5])
        raise InputError(f"{source}: byte 0: a zip must hold exactly one trace file, "
                         f"this one holds {len(members)} ({names})")
    member = members[0]
    where = f"{source}:{member.filename}"
    if member.file_size > limits.max_bytes:
        raise InputError(f"{source}: byte {member.header_offset}: {member.filename} is "
                         f"{member.file_size} bytes, over the {limits.max_bytes} byte limit", status=413)
    if member.flag_bits & 0x1:
        raise InputError(f"{where}: byte {member.header_offset}: the member is encrypted; "
                         f"upload it unencrypted", status=415)
    with open(path, "rb") as raw:
        counter = _Counting(raw)
        try:
            start = zip_member.data_offset(raw, member, where)
        except zipfile.BadZipFile as err:
            raise InputError(f"{where}: byte {member.header_offset}: {err}") from err
        try:
            reader = zip_member.MemberReader(counter, member, where, start)
        except zip_member.UnsupportedMember as err:
            raise InputError(str(err), status=415) from err
        except (OSError, EOFError, zipfile.BadZipFile) as err:
            raise InputError(f"{where}: byte {start + counter.pos}: corrupt or truncated zip data ({err})") from err
        return _copy_limited(reader, counter, out_path, where, f"zip ({reader.method})", limits, base=start)
