"""Zip archives written by hand, as an attacker would: any flags, offsets and duplicate entries.

:func:`members` reads the members of a saved ``graph.lexical.npz``;
:func:`archive` writes members back as a stored zip, each entry as asked
(its flag bits, a second directory entry for it, its checksum right or not),
and :func:`npy` writes one ``.npy`` member with any declared shape.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["Entry", "members", "archive", "npy"]


@dataclass
class Entry:
    """One member of a hand-written zip."""

    name: str
    data: bytes
    flags: int = 0
    copies: int = 1  # directory entries pointing at this one member
    crc: int | None = None  # default: the data's
    extra: dict[str, int] = field(default_factory=dict)


def members(path: Path) -> dict[str, bytes]:
    """The raw bytes of each member of the archive ``path``, by name."""
    with zipfile.ZipFile(path) as zipped:
        return {info.filename: zipped.read(info) for info in zipped.infolist()}


def npy(array: np.ndarray, *, shape: str | None = None) -> bytes:
    """A version 1.0 ``.npy`` of ``array``, its declared shape replaced by ``shape``."""
    declared = shape if shape is not None else repr(tuple(array.shape))
    header = (f"{{'descr': '{array.dtype.str}', 'fortran_order': False, "
              f"'shape': {declared}, }}")
    header += " " * (-(len(header) + 11) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin-1") \
        + array.tobytes()


def archive(entries: Sequence[Entry]) -> bytes:
    """A stored zip of ``entries``, written as each asks."""
    body = bytearray()
    directory = bytearray()
    count = 0
    for entry in entries:
        name = entry.name.encode()
        crc = zlib.crc32(entry.data) if entry.crc is None else entry.crc
        offset = len(body)
        body += struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, entry.flags, 0, 0, 0, crc,
                            len(entry.data), len(entry.data), len(name), 0) + name + entry.data
        for _ in range(entry.copies):
            directory += struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, entry.flags,
                                     0, 0, 0, crc, len(entry.data), len(entry.data), len(name),
                                     0, 0, 0, 0, 0, offset) + name
            count += 1
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, count, count, len(directory),
                      len(body), 0)
    return bytes(body + directory + end)
