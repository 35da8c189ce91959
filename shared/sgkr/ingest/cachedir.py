"""Where the extraction cache lives, and the secret key that signs its entries.

Nothing found inside an analysed tree is trusted: a repository may ship a
folder named like a cache, holding entries crafted for its files (text that
is not in the code reaching an LLM's prompt) or links into other databases.
So the cache lives outside the sources, in this user's cache folder
(:func:`user_cache_root`: ``$SGKR_CACHE_DIR``, else ``$XDG_CACHE_HOME/sgkr``,
else ``~/.cache/sgkr``,
``~/Library/Caches/sgkr`` on macOS, ``%LOCALAPPDATA%\\sgkr\\Cache`` on
Windows), one folder per output folder (:func:`default_cache_dir`); and every
entry is signed with a random key kept there (:func:`secret_key`), so an
entry this user's SGKR did not write is a miss wherever the cache folder is
(``--cache`` may name any folder). Folders and files of the cache are used
only when they are what they should be: a folder or a regular file, not a
symlink, owned by this user, not writable by others (:func:`refusal`).

Examples
--------
>>> default_cache_dir("out/graph.json").parent.name
'builds'
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
import sys
from pathlib import Path

from ..atomic import write_atomic
from ..errors import InvalidArgumentError

__all__ = ["user_cache_root", "default_cache_dir", "secret_key", "refusal", "KEY_FILE",
           "CACHE_VARIABLE"]

#: The environment variable naming the folder of SGKR's caches (absolute path).
CACHE_VARIABLE = "SGKR_CACHE_DIR"
#: The file holding the key that signs cache entries, in :func:`user_cache_root`.
KEY_FILE = "key"
_KEY_BYTES = 32


def user_cache_root() -> Path:
    """This user's folder for SGKR's caches (not created here).

    ``$SGKR_CACHE_DIR`` when that variable holds an absolute path, else
    ``$XDG_CACHE_HOME/sgkr`` when that one does, else the platform's cache folder.

    Examples
    --------
    >>> import os
    >>> user_cache_root() == Path(os.environ["SGKR_CACHE_DIR"])  # as the tests set it
    True
    """
    own = os.environ.get(CACHE_VARIABLE, "")
    if own and os.path.isabs(own):
        return Path(own)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "sgkr"
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "sgkr" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "sgkr"
    return Path.home() / ".cache" / "sgkr"


def default_cache_dir(output: str | os.PathLike[str]) -> Path:
    """The cache folder of the builds writing a graph file into ``output``'s folder.

    One folder per output folder (its absolute, resolved path hashed), under
    :func:`user_cache_root`: outside the sources, so a folder shipped with them
    is never read as a cache.

    Examples
    --------
    >>> default_cache_dir("a/graph.json") == default_cache_dir("a/other.json")
    True
    >>> default_cache_dir("a/graph.json") == default_cache_dir("b/graph.json")
    False
    """
    if not isinstance(output, (str, os.PathLike)):
        raise InvalidArgumentError(f"output must be a path, got {output!r}")
    folder = Path(os.path.abspath(output)).parent.resolve()
    digest = hashlib.sha256(os.fsencode(folder)).hexdigest()[:24]
    return user_cache_root() / "builds" / digest


def refusal(path: Path, *, folder: bool) -> str | None:
    """Why ``path`` may not be used as this user's cache folder (or file), or None.

    A symlink, something other than a folder (or a regular file), an owner
    other than this user, or write access for others is a reason. A missing
    path is none.
    """
    try:
        st = path.lstat()
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return f"{path} is a symlink (a cache is never used through one)"
    if folder and not stat.S_ISDIR(st.st_mode):
        return f"{path} is not a folder"
    if not folder and not stat.S_ISREG(st.st_mode):
        return f"{path} is not a regular file"
    getuid = getattr(os, "getuid", None)
    if getuid is None:  # no owners to compare (Windows): the folder's ACLs decide
        return None
    if st.st_uid != getuid():
        return f"{path} is owned by another user (uid {st.st_uid})"
    if st.st_mode & 0o022:
        return f"{path} may be written by other users (mode {stat.filemode(st.st_mode)})"
    return None


def secret_key() -> bytes:
    """This user's key for signing cache entries, made (random, private) on first use.

    Raises
    ------
    OSError
        If the key cannot be read or made; or :class:`PermissionError` when
        the key file or its folder may not be trusted (the message says why).
    """
    root = user_cache_root()
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = root / KEY_FILE
    why = refusal(root, folder=True) or refusal(path, folder=False)
    if why is not None:
        raise PermissionError(why)
    key = _read_key(path)
    if key is None:
        # Two processes making it at once each rename a whole key over the other:
        # both then read the one that stayed.
        write_atomic(path, secrets.token_bytes(_KEY_BYTES), mode=0o600)
        key = _read_key(path)
    if key is None:
        raise PermissionError(f"{path} is not a usable cache key")
    return key


def _read_key(path: Path) -> bytes | None:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise PermissionError(f"{path} is not a regular file")
        if hasattr(os, "getuid") and st.st_mode & 0o077:  # POSIX modes (Windows: ACLs)
            raise PermissionError(f"{path} may be read by other users "
                                  f"(mode {stat.filemode(st.st_mode)})")
        key = handle.read(_KEY_BYTES + 1)
    return key if len(key) == _KEY_BYTES else None
