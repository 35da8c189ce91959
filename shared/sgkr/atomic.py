"""Writing output files: atomically, and never through a symlink.

Every file SGKR writes (graph.json, exports, evaluation reports, the files of
a persisted retriever, datasets) goes through :func:`write_atomic`: the bytes
go to a new temporary file in the target's folder (created exclusively, so a
link planted under its name is never opened), are flushed to disk, and the
temporary file is renamed over the target in one step. A reader sees the old
file or the new one, never a part; a crash leaves the old file whole. A
symlink at the target path is replaced by the new file: what it points to is
never written. The temporary file's name holds the writer's process id, so
the next write of the same file removes those a killed process left
(:func:`remove_orphans`).

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> folder = Path(tempfile.mkdtemp())
>>> (folder / "victim.txt").write_text("precious")
8
>>> (folder / "out.txt").symlink_to(folder / "victim.txt")
>>> write_atomic(folder / "out.txt", "new").name
'out.txt'
>>> (folder / "victim.txt").read_text(), (folder / "out.txt").is_symlink()
('precious', False)
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, TypeAlias

from .errors import InvalidArgumentError

__all__ = ["write_atomic", "hashed", "remove_orphans"]

#: What :func:`write_atomic` writes: the whole content, its pieces, or a function writing it.
_Data: TypeAlias = (str | bytes | memoryview | Iterator[str] | Iterator[bytes]
                    | Callable[[BinaryIO], object])

# A temporary file whose writer cannot be known is left alone this long.
_ORPHAN_SECONDS = 3600.0


def hashed(pieces: Iterable[str] | Iterable[bytes], digest: Any) -> Iterator[bytes]:
    """``pieces`` as the bytes to write (text as UTF-8), each added to ``digest`` (a
    :mod:`hashlib` object) on its way: the digest of a file :func:`write_atomic` writes in
    pieces, without reading it back.

    Examples
    --------
    >>> import hashlib, tempfile
    >>> from pathlib import Path
    >>> digest = hashlib.sha256()
    >>> path = write_atomic(Path(tempfile.mkdtemp()) / "out.txt", hashed(["a", "b"], digest))
    >>> digest.hexdigest() == hashlib.sha256(path.read_bytes()).hexdigest()
    True
    """
    for piece in pieces:
        data = piece.encode("utf-8") if isinstance(piece, str) else piece
        digest.update(data)
        yield data


def write_atomic(path: str | os.PathLike[str],
                 data: _Data, *, mode: int | None = None) -> Path:
    """Write ``data`` (text is UTF-8) to ``path`` atomically; return the path.

    Parameters
    ----------
    path
        The file to write; its folder is made if missing. A symlink there is
        replaced by the file, never followed.
    data
        The whole content (a view of bytes too: they are not copied), or its
        text (or bytes) in pieces, written as they come (a large file need not
        be held in memory whole), or a function that writes it to the (seekable)
        file it is given.
    mode
        The file's permissions; default ``0o666`` less the umask, as
        :func:`open` gives a new file.

    Raises
    ------
    InvalidArgumentError
        If ``path`` is not a path or ``data`` neither text, bytes nor an iterator.
    OSError
        If the folder cannot be written, or ``path`` is a folder; the error
        names ``path``, never the temporary file.
    """
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise InvalidArgumentError(f"output path must be a file name, got {path!r}")
    if not isinstance(data, (str, bytes, memoryview, Iterator)) and not callable(data):
        raise InvalidArgumentError(f"output data must be str, bytes, an iterator of str or a "
                                   f"writer, got {type(data).__name__}")
    target = Path(path)
    if _is_folder(target):
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(target))
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    remove_orphans(folder, target.name)
    # mkstemp opens with O_CREAT | O_EXCL: a name taken (even by a link) is never opened.
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp",
                               dir=folder)
    try:
        os.chmod(tmp, 0o666 & ~_umask() if mode is None else mode)
        with os.fdopen(fd, "wb") as handle:
            _write(handle, data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)  # rename replaces a link at target, never its target
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        # Named by the file asked for, never by the temporary one.
        if exc.errno is None:
            raise type(exc)(f"{exc}: {target}") from exc
        raise type(exc)(exc.errno, exc.strerror, str(target)) from exc
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _sync_folder(folder)
    return target


def _write(handle: BinaryIO, data: _Data) -> None:
    """Write ``data`` (see :func:`write_atomic`) to the open file ``handle``."""
    if callable(data):
        data(handle)
        return
    for piece in [data] if isinstance(data, (str, bytes, memoryview)) else data:
        handle.write(piece.encode("utf-8") if isinstance(piece, str) else piece)


def remove_orphans(folder: Path, name: str) -> list[str]:
    """Delete the temporary files of writes of ``name`` that a killed process left in ``folder``.

    A temporary file is an orphan when the process named in it is gone (on
    POSIX), or, for one without a process id, when it is over an hour old.
    Writes in progress are left alone. Returns the names removed.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / ".graph.json.999999999.x1.tmp").write_text("{")
    >>> remove_orphans(folder, "graph.json")
    ['.graph.json.999999999.x1.tmp']
    """
    prefix = f".{name}."
    removed: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if not (entry.name.startswith(prefix) and entry.name.endswith(".tmp")):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(info.st_mode) or not _orphan(entry.name[len(prefix):], info):
                continue
            os.unlink(entry.path)
            removed.append(entry.name)
        except OSError:
            continue  # gone already, or not ours to remove
    return removed


def _is_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(path.lstat().st_mode)
    except OSError:
        return False


def _orphan(rest: str, info: os.stat_result) -> bool:
    pid_text = rest.split(".", 1)[0]
    if os.name == "posix" and pid_text.isdigit():
        pid = int(pid_text)
        if pid == os.getpid():
            return False  # a write of this process, maybe in another thread
        try:
            os.kill(pid, 0)  # signal 0: only asks whether the process exists
        except ProcessLookupError:
            return True
        except (PermissionError, OverflowError):
            return False
        return False
    return time.time() - info.st_mtime > _ORPHAN_SECONDS


def _sync_folder(folder: Path) -> None:
    """Flush the rename to disk too (POSIX); where a folder cannot be opened, skip it."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
