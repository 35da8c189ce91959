"""Where the cache lives and the key that signs its entries."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from sgkr.ingest.cachedir import (
    CACHE_VARIABLE,
    KEY_FILE,
    default_cache_dir,
    refusal,
    secret_key,
    user_cache_root,
)


@pytest.fixture()
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "root"))
    return tmp_path / "root"


def test_the_root_is_chosen_by_variable_then_xdg_then_home(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "own"))
    assert user_cache_root() == tmp_path / "own"
    monkeypatch.setenv(CACHE_VARIABLE, "relative/ignored")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert user_cache_root() == tmp_path / "xdg" / "sgkr"
    monkeypatch.delenv(CACHE_VARIABLE)
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    assert user_cache_root().parent in (Path.home() / ".cache", Path.home() / "Library" / "Caches")


def test_the_default_folder_is_under_the_root_never_beside_the_output(root: Path) -> None:
    folder = default_cache_dir(Path("repo") / "graph.json")
    assert folder.parent == root / "builds"
    assert Path("repo") not in folder.parents


def test_the_key_is_made_private_once_and_kept(root: Path) -> None:
    key = secret_key()
    assert len(key) == 32 and secret_key() == key
    assert stat.S_IMODE((root / KEY_FILE).stat().st_mode) == 0o600
    assert stat.S_IMODE(root.stat().st_mode) == 0o700


def test_a_short_key_is_made_again(root: Path) -> None:
    root.mkdir(mode=0o700)
    (root / KEY_FILE).write_bytes(b"short")
    os.chmod(root / KEY_FILE, 0o600)
    assert len(secret_key()) == 32


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX modes")
@pytest.mark.parametrize("plant", ["readable by others", "a symlink", "a folder",
                                   "root writable by others"])
def test_a_key_that_may_not_be_trusted_is_refused(tmp_path: Path, root: Path,
                                                  plant: str) -> None:
    root.mkdir(mode=0o700)
    key = root / KEY_FILE
    if plant == "a symlink":
        (tmp_path / "theirs").write_bytes(b"k" * 32)
        key.symlink_to(tmp_path / "theirs")
    elif plant == "a folder":
        key.mkdir()
    else:
        key.write_bytes(b"k" * 32)
        os.chmod(key, 0o644 if plant == "readable by others" else 0o600)
        if plant == "root writable by others":
            os.chmod(root, 0o777)
    with pytest.raises(PermissionError):
        secret_key()


def test_refusal_names_links_and_wrong_kinds(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    (tmp_path / "d").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "d")
    assert refusal(tmp_path / "missing", folder=True) is None
    assert refusal(tmp_path / "d", folder=True) is None
    assert "symlink" in str(refusal(tmp_path / "link", folder=True))
    assert "not a folder" in str(refusal(tmp_path / "f", folder=True))
    assert "not a regular file" in str(refusal(tmp_path / "d", folder=False))
