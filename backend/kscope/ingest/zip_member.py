"""One zip member's data, decompressed as a stream: at most `n` bytes come out per read.

Why not zipfile's own reader: for bzip2 and LZMA members it decompresses each compressed
chunk it reads with no output limit (only deflate gets one), so a 1,678-byte zip of
bzip2'd zeros came out as 4 GB in one call before any size or ratio check could look
(issue 20, finding 3: 23.9 s, 4.37 GB peak). Here every method goes through a
decompressor asked for at most `n` bytes per call, the compressed bytes consumed are
counted on the caller's counter (sources._Counting: the ratio limit's denominator and
the offsets in messages), and the CRC-32 is checked at the end.

Methods: stored, deflate, bzip2, LZMA (zip's LZMA: a 4-byte header, the LZMA1 properties,
then a raw LZMA1 stream, as zipfile writes it). Anything else is refused by name.
"""

import bz2
import lzma
import struct
import zipfile
import zlib
from typing import Any

METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate", zipfile.ZIP_BZIP2: "bzip2",
           zipfile.ZIP_LZMA: "lzma"}
# Compressed bytes read from the file at a time (the output limit is the caller's `n`): small, so
# the count of compressed bytes consumed (the ratio's denominator) is never far ahead of the output.
CHUNK = 8 * 1024
# The LZMA decoder allocates the dictionary its header declares (up to 4 GiB) before any data:
# larger than any preset (xz -9: 64 MiB) is refused.
MAX_LZMA_DICT = 64 << 20
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature, (fields we do not need), name and extra lengths


class UnsupportedMember(ValueError):
    """A member compressed with a method kscope does not read."""


def data_offset(raw: Any, member: zipfile.ZipInfo, where: str) -> int:
    """Where the member's compressed data starts: after its local header, name and extra field."""
    raw.seek(member.header_offset)
    head = raw.read(_LOCAL_HEADER.size)
    if len(head) != _LOCAL_HEADER.size:
        raise zipfile.BadZipFile(f"local header of {where} at byte {member.header_offset} is cut short")
    signature, name_len, extra_len = _LOCAL_HEADER.unpack(head)
    if signature != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"no local header of {where} at byte {member.header_offset}")
    return member.header_offset + _LOCAL_HEADER.size + name_len + extra_len


class MemberReader:
    """read(n): up to n decompressed bytes of the member, b"" at its end (CRC checked then).

    `counter` is a sources._Counting over the archive file, positioned at the member's data;
    its pos is reset here so it counts this member's compressed bytes only."""

    def __init__(self, counter: Any, member: zipfile.ZipInfo, where: str, start: int) -> None:
        method = METHODS.get(member.compress_type)
        if method is None:
            raise UnsupportedMember(f"{where}: byte {member.header_offset}: compression method "
                                    f"{member.compress_type} is not supported (kscope reads zip members "
                                    f"that are stored, deflate, bzip2 or lzma)")
        self.method = method
        self.counter = counter
        self.member = member
        self.left = member.compress_size
        self.crc = 0
        self.done = False
        counter.f.seek(start)
        counter.pos = 0
        self.pending = b""  # compressed bytes read but not yet given to the decompressor
        self.d: Any = None
        if method == "deflate":
            self.d = zlib.decompressobj(-15)
        elif method == "bzip2":
            self.d = bz2.BZ2Decompressor()
        elif method == "lzma":
            head = self._raw(4)
            if len(head) != 4:
                raise EOFError("LZMA header cut short")
            _, _, props_len = struct.unpack("<BBH", head)
            props = self._raw(props_len)
            if len(props) != props_len:
                raise EOFError("LZMA properties cut short")
            if len(props) >= 5 and int.from_bytes(props[1:5], "little") > MAX_LZMA_DICT:
                raise UnsupportedMember(f"{where}: byte {start + 4}: the LZMA stream asks for a "
                                        f"{int.from_bytes(props[1:5], 'little')}-byte dictionary, over the "
                                        f"{MAX_LZMA_DICT} bytes kscope allows (xz -9 uses 64 MiB)")
            try:
                lzma1 = lzma._decode_filter_properties(lzma.FILTER_LZMA1, props)  # as zipfile does
            except lzma.LZMAError as err:
                raise zipfile.BadZipFile(f"bad LZMA properties ({err})") from err
            self.d = lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=[lzma1])

    def _raw(self, n: int) -> bytes:
        data = self.counter.read(min(n, self.left))
        self.left -= len(data)
        return data

    def read(self, n: int = -1) -> bytes:
        if self.done:
            return b""
        n = n if n > 0 else CHUNK
        out = self._stored(n) if self.d is None else self._inflate(n)
        if out:
            self.crc = zlib.crc32(out, self.crc)
            return out
        self.done = True
        if self.d is not None and not self.d.eof:
            raise EOFError(f"the {self.method} stream ends early")
        if self.crc != self.member.CRC:
            raise zipfile.BadZipFile(f"CRC-32 mismatch: {self.crc:08x}, the zip says {self.member.CRC:08x}")
        return b""

    def _stored(self, n: int) -> bytes:
        return self._raw(n)

    def _inflate(self, n: int) -> bytes:
        """Up to n bytes out of the decompressor, feeding it compressed chunks as it needs them."""
        d = self.d
        while not d.eof:
            if self.method == "deflate":  # zlib keeps input it could not use within n in unconsumed_tail
                data = d.unconsumed_tail or self._raw(CHUNK)
            else:  # bz2 / lzma keep it inside and say whether they need more
                data = self._raw(CHUNK) if d.needs_input else b""
                if d.needs_input and not data:
                    return b""
            if self.method == "deflate" and not data:
                return b""
            out = d.decompress(data, n)
            if out:
                return out
        return b""
