"""The on-disk compilation cache and the IR dump of ``pyasc.jit`` (and of eager ops).

A compiled program is stored as its ``ascendc``-level module, pickled, plus a little metadata: per
key, ``<key>.pkl`` holds the module and ``<key>.json`` the metadata and the SHA-256 of the pickle,
under ``PYASC_CACHE_DIR`` (default ``$XDG_CACHE_HOME/pyasc`` or ``~/.cache/pyasc``;
``PYASC_CACHE_DIR=off`` disables it). Pickling a module costs a third of printing it as text and
loading it a fraction of parsing it (ResNet-18's 11,000 ops), so no text is written. The key hashes
the function's source, the traced ``asctensor`` program (which fixes the input signature, the static
arguments and the values of any closure the function used), the compile options and pyasc's version
together with a fingerprint of the compiler's own source files, so editing a pass never reuses a
stale entry.

Both files are written atomically (a temporary file in the same folder, then ``os.replace``), the
pickle first. Like ``__pycache__``, the cache folder is trusted as much as the Python installation:
whoever can write it can run code in pyasc. Loading checks the metadata against ``SCHEMA`` (every
field and the metadata's fields with their types) and the pickle against its checksum: an entry that
is unreadable, truncated, of the wrong shape, tampered with, from another version or whose module
does not unpickle is deleted, logged (a warning of the ``"pyasc"`` logger) and recompiled, never
trusted.

``PYASC_DUMP_PATH=dir`` writes, for every program compiled, ``dir/<name>-<key>/`` with the IR of
every level (``0-traced.mlir`` ... ``4-ascendc.mlir``), the Ascend C kernel (``kernel.cpp``) and
the AscendCL host program (``host.cpp``).
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import inspect
import json
import logging
import os
import pickle
import sys
import tempfile
import threading
from pathlib import Path

import pyasc.dialects
import pyasc.lowering

from . import __version__

FORMAT = 2
log = logging.getLogger("pyasc")

# field -> type of a cache entry and of its metadata (lists: of strings)
SCHEMA = {"format": int, "key": str, "version": str, "sha256": str, "meta": dict}
META_SCHEMA = {"name": str, "inputs": list, "outputs": list, "returns_tuple": bool}


class BadEntry(ValueError):
    """A cache entry that does not match ``SCHEMA`` or its key, version or checksum."""


def check_entry(entry, key: str) -> None:
    """Raise ``BadEntry`` unless ``entry`` (a decoded JSON file) is a valid entry for ``key``."""
    if not isinstance(entry, dict):
        raise BadEntry(f"the entry is a {type(entry).__name__}, not an object")
    for table, obj, where in ((SCHEMA, entry, "entry"), (META_SCHEMA, entry.get("meta"), "meta")):
        for name, typ in table.items():
            value = obj.get(name) if isinstance(obj, dict) else None
            if type(value) is not typ:  # exact: a bool is not an int
                raise BadEntry(f"{where} field '{name}' is {type(value).__name__}, expected {typ.__name__}")
    meta = entry["meta"]
    for name in ("inputs", "outputs"):
        if not all(isinstance(x, str) for x in meta[name]):
            raise BadEntry(f"meta field '{name}' must be a list of strings")
    if entry["format"] != FORMAT or entry["key"] != key or entry["version"] != version_fingerprint():
        raise BadEntry("an entry of another format, key or pyasc version")


_fingerprint: list[str] = []
_stats = {"hits": 0, "misses": 0, "stores": 0, "rejected": 0}
_stats_lock = threading.Lock()


def _count(*names: str) -> None:
    with _stats_lock:
        for name in names:
            _stats[name] += 1


def cache_dir() -> Path | None:
    """The cache folder, or None when the disk cache is disabled."""
    env = os.environ.get("PYASC_CACHE_DIR")
    if env is not None:
        if env.strip().lower() in ("", "0", "off", "none", "false", "disabled"):
            return None
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pyasc"


def version_fingerprint() -> str:
    """pyasc's version and a hash of the sources of the front end, dialects and passes."""
    if not _fingerprint:
        h = hashlib.sha256(__version__.encode())
        for root in (Path(__file__).parent, Path(pyasc.dialects.__file__).parent, Path(pyasc.lowering.__file__).parent):
            for f in sorted(root.rglob("*.py")):
                h.update(str(f.relative_to(root)).encode())
                h.update(f.read_bytes())
        _fingerprint.append(f"{__version__}+{h.hexdigest()[:16]}")
    return _fingerprint[0]


def function_source(fn) -> str:
    """The source text of ``fn`` (its code object's bytes and constants when there is none)."""
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        code = getattr(fn, "__code__", None)
        if code is None:
            return repr(fn)
        return f"{code.co_qualname}:{code.co_code.hex()}:{code.co_consts!r}"


def make_key(source: str, traced_text: str, options) -> str:
    opts = dataclasses.asdict(options) if dataclasses.is_dataclass(options) else dict(options)
    h = hashlib.sha256()
    for part in (f"format={FORMAT}", version_fingerprint(), json.dumps(opts, sort_keys=True, default=str),
                 source, traced_text):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _path(key: str) -> Path | None:
    d = cache_dir()
    return None if d is None else d / key[:2] / f"{key}.json"


# ----------------------------------------------------------------------------- the pickled module

_DEEP_STACK = 512 * 2**20       # bytes of stack for the thread that pickles: IR graphs nest deeply
_DEEP_RECURSION = 200_000
_deep_lock = threading.Lock()


def _deep_call(fn, *args):
    """``fn(*args)`` in a thread with a large stack and recursion limit (pickle recurses along the
    IR's links); the process-wide recursion limit is restored afterwards. The cyclic garbage
    collector is paused meanwhile: (un)pickling creates only live objects, and the collections it
    would trigger every few hundred allocations make loading a large module several times slower."""
    out: dict = {}

    def run():
        collecting = gc.isenabled()
        gc.disable()
        try:
            out["value"] = fn(*args)
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller
            out["error"] = e
        finally:
            if collecting:
                gc.enable()

    with _deep_lock:
        old_stack = threading.stack_size(_DEEP_STACK)
        try:
            worker = threading.Thread(target=run, name="pyasc-cache-pickle")
        finally:
            threading.stack_size(old_stack)
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, _DEEP_RECURSION))
        try:
            worker.start()
            worker.join()
        finally:
            sys.setrecursionlimit(old_limit)
    if "error" in out:
        raise out["error"]
    return out["value"]


def _pickle_path(path: Path) -> Path:
    return path.with_suffix(".pkl")


def _load_module(path: Path, sha: str):
    """The pickled module beside ``path``, checked against ``sha`` (raises ``BadEntry``)."""
    from xdsl.dialects.builtin import ModuleOp

    blob = _pickle_path(path).read_bytes()
    if hashlib.sha256(blob).hexdigest() != sha:
        raise BadEntry("the pickled module does not match its checksum")
    module = _deep_call(pickle.loads, blob)
    if not isinstance(module, ModuleOp):
        raise BadEntry(f"the pickled object is a {type(module).__name__}")
    return module


def load(key: str):
    """``(module, meta)`` of a valid entry, or None (missing, disabled or rejected)."""
    path = _path(key)
    if path is None or not path.is_file():
        _count("misses")
        return None
    try:
        entry = json.loads(path.read_text())
        check_entry(entry, key)
        module = _load_module(path, entry["sha256"])
        meta = entry["meta"]
    except Exception as e:  # noqa: BLE001 - any defect means: discard, recompile, do not trust
        _count("rejected", "misses")
        log.warning("pyasc cache: discarding bad entry %s (%s: %s); recompiling", path, type(e).__name__,
                    str(e).splitlines()[0] if str(e) else "")
        for stale in (path, _pickle_path(path)):
            stale.unlink(missing_ok=True)
        return None
    _count("hits")
    return module, meta


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def store(key: str, module, meta: dict) -> None:
    """Write an entry atomically, the pickled module first; a failure to write (read-only folder,
    full disk) is ignored, and so is a module that does not pickle (it is compiled again)."""
    path = _path(key)
    if path is None:
        return
    try:
        blob = _deep_call(pickle.dumps, module, pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, RecursionError, TypeError, AttributeError) as e:
        log.info("pyasc cache: %s not stored, its module does not pickle (%s)", key[:12], type(e).__name__)
        return
    entry = {"format": FORMAT, "key": key, "version": version_fingerprint(),
             "sha256": hashlib.sha256(blob).hexdigest(), "meta": meta}
    try:
        _write_atomically(_pickle_path(path), blob)
        _write_atomically(path, json.dumps(entry).encode())
        _count("stores")
    except OSError:
        return


def stats() -> dict:
    """Counters of this process: disk hits, misses, stores and rejected (corrupt) entries."""
    return dict(_stats)


def clear(disk: bool = False) -> None:
    """Reset the counters; with ``disk=True`` also delete every entry of the cache folder."""
    for k in _stats:
        _stats[k] = 0
    d = cache_dir()
    if disk and d is not None and d.is_dir():
        for pattern in ("*.json", "*.pkl"):
            for f in d.rglob(pattern):
                f.unlink(missing_ok=True)


# ----------------------------------------------------------------------------- dump

_dumped: set[str] = set()


def dump_path() -> Path | None:
    env = os.environ.get("PYASC_DUMP_PATH")
    return Path(env) if env else None


def dump(lowered, compiled, key: str) -> Path | None:
    """Write every level's IR and the Ascend C of one program under ``PYASC_DUMP_PATH``."""
    root = dump_path()
    if root is None:
        return None
    out = root / f"{lowered.name}-{key[:12]}"
    if str(out) in _dumped and out.is_dir():
        return out
    from pyasc.lowering.pipeline import LEVELS

    out.mkdir(parents=True, exist_ok=True)
    files = {"0-traced.mlir": str(lowered.traced)}
    for i, level in enumerate(LEVELS, start=1):
        files[f"{i}-{level}.mlir"] = str(lowered.module(level))
    try:
        files["kernel.cpp"] = compiled.ascendc_source()
        files["host.cpp"] = compiled.host_source()
    except Exception as e:  # noqa: BLE001 - the IR dump is still useful without the emitter
        files["emit-error.txt"] = f"{type(e).__name__}: {e}\n"
    for name, text in files.items():
        (out / name).write_text(text if text.endswith("\n") else text + "\n")
    _dumped.add(str(out))
    return out
