"""Arrays in a NumPy ``.npz`` archive, read as untrusted data: the one reader of derived files.

A file derived from a graph (the lexical index and summary saved beside
graph.json, :mod:`sgkr.algorithms.lexicalfile`) is a ``.npz``: a zip archive,
stored uncompressed, of ``.npy`` members, one 1-D array each, plain numbers
only. :func:`write_npz` writes one (with :func:`numpy.savez`, so NumPy reads
it back too); :func:`read_npz` reads one from its bytes, trusting nothing in
them:

- the members are exactly those asked for, each once, stored (never
  compressed, encrypted or flagged), each inside the file and none
  overlapping another or the directory (a crafted archive cannot make one
  byte count many times);
- each member's checksum (CRC-32) is that of its bytes;
- each array's type is the one asked for and its declared shape is checked
  against the bytes present before anything is allocated; the arrays are
  views of the file's bytes, never copies;
- whatever else goes wrong is a :class:`~sgkr.errors.GraphFormatError` naming
  the file, never another exception.

Examples
--------
>>> import numpy as np, pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "x.npz"
>>> raw = write_npz(path, {"header": np.frombuffer(b"{}", dtype=np.uint8),
...                        "n": np.arange(3, dtype=np.int64)}).read_bytes()
>>> arrays = read_npz(raw, "x.npz", {"header": np.uint8, "n": np.int64})
>>> arrays["n"].tolist(), bytes(arrays["header"])
([0, 1, 2], b'{}')
>>> read_npz(raw[:-30], "x.npz", {"n": np.int64})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
sgkr.errors.GraphFormatError: x.npz: not a valid archive of arrays (...)
"""

from __future__ import annotations

import ast
import io
import os
import struct
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..atomic import write_atomic
from ..errors import GraphFormatError
from ..ingest.files import parse_large_json, read_side_file

__all__ = ["write_npz", "read_npz", "read_derived", "MAX_MEMBERS"]

#: Members an archive may hold (a derived file has a handful).
MAX_MEMBERS = 64
# The fixed part of a zip entry's local header, and of a .npy header.
_LOCAL = struct.Struct("<4sHHHHHIIIHH")
_LOCAL_SIGNATURE = b"PK\x03\x04"
_NPY_MAGIC = b"\x93NUMPY"
_MAX_NPY_HEADER = 10_000  # NumPy's own limit


def write_npz(path: str | os.PathLike[str], arrays: Mapping[str, npt.NDArray[Any]]) -> Path:
    """Write the ``.npz`` archive (stored, uncompressed) of ``arrays`` to ``path`` atomically
    (:func:`~sgkr.atomic.write_atomic`), straight into the file: never whole in memory."""
    return write_atomic(path, lambda handle: np.savez(handle, **arrays))  # type: ignore[arg-type]


def read_npz(raw: bytes, where: str,
             dtypes: Mapping[str, type[np.generic]]) -> dict[str, npt.NDArray[Any]]:
    """The 1-D arrays named in ``dtypes``, of those types, from the ``.npz`` bytes ``raw``.

    Raises
    ------
    GraphFormatError
        If the archive is malformed or holds other members or types (see the
        module documentation); the message names ``where``.
    """
    try:
        return _read(raw, where, dtypes)
    except GraphFormatError:
        raise
    except Exception as exc:  # a crafted archive: whatever zipfile or struct raise
        raise GraphFormatError(f"{where}: not a valid archive of arrays "
                               f"({type(exc).__name__}: {exc})"[:500]) from exc


def read_derived(path: str | os.PathLike[str], what: str, dtypes: Mapping[str, type[np.generic]],
                 limit: int) -> tuple[Any, dict[str, npt.NDArray[Any]]]:
    """The JSON header and the other arrays of the derived file ``path``, a ``what``.

    ``dtypes`` names the members, ``header`` (``np.uint8``: bytes of JSON)
    among them; at most ``limit`` bytes are read.

    Raises
    ------
    GraphFormatError
        If the file cannot be read, is malformed (see :func:`read_npz`) or its
        header is not JSON; the message names ``path``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "x.npz"
    >>> _ = write_npz(path, {"header": np.frombuffer(b'{"n": 1}', dtype=np.uint8),
    ...                      "n": np.arange(2, dtype=np.int64)})
    >>> header, arrays = read_derived(path, "test file", {"header": np.uint8, "n": np.int64}, 1000)
    >>> header, arrays["n"].tolist()
    ({'n': 1}, [0, 1])
    """
    where = str(path)
    raw = read_side_file(path, f"{where}: cannot read the {what}", GraphFormatError, limit=limit)
    arrays = read_npz(raw, f"{where}: not a {what}", dtypes)
    header = parse_large_json(bytes(arrays.pop("header")), where, GraphFormatError,
                              invalid=f"not a {what} (its header is not JSON)")
    return header, arrays


def _read(raw: bytes, where: str,
          dtypes: Mapping[str, type[np.generic]]) -> dict[str, npt.NDArray[Any]]:
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        infos = archive.infolist()
        directory = archive.start_dir
    if len(infos) > MAX_MEMBERS:
        raise GraphFormatError(f"{where}: {len(infos)} members (at most {MAX_MEMBERS})")
    names = [info.filename for info in infos]
    if sorted(names) != sorted(f"{name}.npy" for name in dtypes):
        raise GraphFormatError(f"{where}: members {sorted(names)[:10]}, expected "
                               f"{sorted(f'{name}.npy' for name in dtypes)}")
    view = memoryview(raw)
    spans = sorted(_span(raw, info, where) for info in infos)
    end = 0
    for start, _, data_end, _ in spans:
        if start < end:
            raise GraphFormatError(f"{where}: members overlap")
        end = data_end
    if end > directory:
        raise GraphFormatError(f"{where}: a member overlaps the archive's directory")
    return {name[:-4]: _array(view[data_start:data_end], dtypes[name[:-4]], where, name)
            for _, data_start, data_end, name in spans}


def _span(raw: bytes, info: zipfile.ZipInfo, where: str) -> tuple[int, int, int, str]:
    """Where ``info``'s local header starts, and its data starts and ends, checked."""
    name = info.filename
    if info.flag_bits & ~0x800 or info.compress_type != zipfile.ZIP_STORED \
            or info.file_size != info.compress_size:
        raise GraphFormatError(f"{where}: member {name} is compressed, encrypted or flagged")
    start = info.header_offset
    if not 0 <= start <= len(raw) - _LOCAL.size:
        raise GraphFormatError(f"{where}: member {name} lies outside the file")
    (signature, _, flags, method, _, _, _, _, _, name_length,
     extra_length) = _LOCAL.unpack_from(raw, start)
    local_name = raw[start + _LOCAL.size:start + _LOCAL.size + name_length]
    if signature != _LOCAL_SIGNATURE or flags != info.flag_bits or method != zipfile.ZIP_STORED \
            or local_name != name.encode("utf-8" if flags & 0x800 else "cp437"):
        raise GraphFormatError(f"{where}: member {name}'s header does not match the directory")
    data_start = start + _LOCAL.size + name_length + extra_length
    data_end = data_start + info.file_size
    if data_end > len(raw):
        raise GraphFormatError(f"{where}: member {name} is cut short")
    if zlib.crc32(memoryview(raw)[data_start:data_end]) != info.CRC:
        raise GraphFormatError(f"{where}: member {name} is corrupted (its checksum differs)")
    return start, data_start, data_end, name


def _array(data: memoryview, dtype: type[np.generic], where: str,
           name: str) -> npt.NDArray[Any]:
    """The 1-D array of type ``dtype`` a ``.npy`` member holds: a view of ``data``."""
    if bytes(data[:6]) != _NPY_MAGIC or len(data) < 10:
        raise GraphFormatError(f"{where}: member {name} is not a .npy array")
    major = data[6]
    if major == 1:
        length, offset = struct.unpack_from("<H", data, 8)[0], 10
    elif major in (2, 3):
        length, offset = struct.unpack_from("<I", data, 8)[0], 12
    else:
        raise GraphFormatError(f"{where}: member {name}: unknown .npy version {major}")
    if length > _MAX_NPY_HEADER or offset + length > len(data):
        raise GraphFormatError(f"{where}: member {name}'s .npy header is too long")
    header = ast.literal_eval(bytes(data[offset:offset + length]).decode("latin-1"))
    if not isinstance(header, dict) or set(header) != {"descr", "fortran_order", "shape"}:
        raise GraphFormatError(f"{where}: member {name}'s .npy header is malformed")
    expected = np.dtype(dtype)
    shape = header["shape"]
    if header["descr"] != expected.str or header["fortran_order"] is not False \
            or not isinstance(shape, tuple) or len(shape) != 1 or type(shape[0]) is not int:
        raise GraphFormatError(f"{where}: {name[:-4]} must be a 1-D {expected.name} array")
    body = data[offset + length:]
    # The declared length against the bytes present, before anything is made of them.
    if shape[0] * expected.itemsize != len(body):
        raise GraphFormatError(f"{where}: {name[:-4]} declares {shape[0]} items, the file "
                               f"holds {len(body)} bytes")
    return np.frombuffer(body, dtype=expected)
