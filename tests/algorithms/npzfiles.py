"""Test helpers for derived ``.npz`` files: rewrite members as an attacker would."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np

__all__ = ["rewrite"]


def rewrite(path: Path, **arrays: object) -> None:
    """Write ``path`` again with ``arrays`` in place of (or beside) its members."""
    with zipfile.ZipFile(path) as archive:
        members = {i.filename[:-4]: np.lib.format.read_array(archive.open(i))
                   for i in archive.infolist()}
    members.update(arrays)
    buffer = io.BytesIO()
    np.savez(buffer, **members)  # type: ignore[arg-type]
    path.write_bytes(buffer.getvalue())
