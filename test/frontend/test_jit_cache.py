"""One compile per signature, the disk cache (key, atomic writes, corrupt
entries recompiled), PYASC_DUMP_PATH, options and the target; eager ops share the caches."""

import hashlib
import json

import numpy as np
import pytest

import pyasc
from pyasc import cache, eager

from .conftest import requires_backend

pytestmark = requires_backend


@pytest.fixture
def disk(tmp_path, monkeypatch):
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path / "cache"))
    cache.clear()
    return tmp_path / "cache"


def entries(d):
    return sorted(d.rglob("*.json")) if d.exists() else []


def _fresh(fn):
    """A new JitFunction (empty memory cache) of the same Python function: a new process."""
    return pyasc.jit(fn)


def scale(x):
    return pyasc.sigmoid(x) * 3.0


def test_disk_cache_hit_in_a_fresh_jit_function(disk):
    x = pyasc.randn(8, 40)
    out1 = _fresh(scale)(x)
    assert cache.stats()["stores"] == 1 and len(entries(disk)) == 1
    out2 = _fresh(scale)(x)
    assert cache.stats()["hits"] == 1
    np.testing.assert_array_equal(out1.numpy(), out2.numpy())
    entry = json.loads(entries(disk)[0].read_text())
    assert entry["meta"]["outputs"] == ["float32[8, 40]"]
    assert hashlib.sha256(entries(disk)[0].with_suffix(".pkl").read_bytes()).hexdigest() == entry["sha256"]
    assert not list(disk.rglob(".tmp-*"))                    # atomic: no temporary left behind


def test_key_depends_on_options_signature_and_source(disk):
    x = pyasc.randn(64)
    pyasc.jit(scale)(x)
    pyasc.jit(scale, options={"cores": 1})(x)                # options are part of the key
    pyasc.jit(scale)(pyasc.randn(65))                         # so is the signature
    pyasc.jit(lambda x: pyasc.sigmoid(x) * 3.0)(x)            # and the source
    assert cache.stats()["hits"] == 0 and len(entries(disk)) == 4


@pytest.mark.parametrize("damage", ["truncate", "garbage", "tamper", "bad_ir"])
def test_corrupt_entry_is_recompiled_not_trusted(disk, damage):
    x = pyasc.randn(16)
    expected = _fresh(scale)(x).numpy()
    (path,) = entries(disk)
    text, blob = path.read_text(), path.with_suffix(".pkl").read_bytes()
    if damage == "truncate":
        path.write_text(text[: len(text) // 2])
    elif damage == "garbage":
        path.write_bytes(b"\x00\xff not json")
    elif damage == "tamper":        # a changed module without a matching checksum
        path.with_suffix(".pkl").write_bytes(blob.replace(b"3.0", b"4.0") + b"\x00")
    else:                           # a matching checksum over bytes that do not unpickle
        entry = json.loads(text)
        bad = blob[: len(blob) // 2]
        path.with_suffix(".pkl").write_bytes(bad)
        entry["sha256"] = hashlib.sha256(bad).hexdigest()
        path.write_text(json.dumps(entry))
    out = _fresh(scale)(x)
    np.testing.assert_array_equal(out.numpy(), expected)
    assert cache.stats()["rejected"] == 1 and cache.stats()["stores"] == 2
    entry = json.loads(path.read_text())                       # rewritten whole
    cache.check_entry(entry, entry["key"])
    assert hashlib.sha256(path.with_suffix(".pkl").read_bytes()).hexdigest() == entry["sha256"]


def test_cache_can_be_disabled(monkeypatch, tmp_path):
    monkeypatch.setenv("PYASC_CACHE_DIR", "off")
    cache.clear()
    _fresh(scale)(pyasc.randn(4))
    assert cache.stats()["stores"] == 0 and cache.cache_dir() is None


def test_one_compile_per_signature_and_static_args():
    f = pyasc.jit(lambda x, k: x * k)
    f(pyasc.ones(8), 2.0)
    f(pyasc.zeros(8), 2.0)
    assert f.cache_size() == 1
    f(pyasc.zeros(8), 3.0)
    assert f.cache_size() == 2


def _add(a, b):
    return a + b      # one source line: the traced op records it, so the disk key includes it


def test_eager_ops_reuse_the_caches(disk):
    eager.clear_cache()
    x = pyasc.randn(5, 7)
    _add(x, x)
    assert eager.cache_info()["programs"] == 1 and cache.stats()["stores"] == 1
    _add(x, pyasc.randn(5, 7))                                # same signature: nothing compiles
    x + x                                                     # in memory the call site does not matter
    assert eager.cache_info()["programs"] == 1 and cache.stats()["stores"] == 1
    eager.clear_cache()                                       # as in a new process: the disk has it
    np.testing.assert_allclose(_add(x, x).numpy(), 2 * x.numpy())
    assert cache.stats()["hits"] == 1 and cache.stats()["stores"] == 1


def test_dump_path_writes_every_level_and_ascend_c(tmp_path, monkeypatch, disk):
    monkeypatch.setenv("PYASC_DUMP_PATH", str(tmp_path / "dump"))
    pyasc.jit(scale)(pyasc.randn(32))
    (d,) = (tmp_path / "dump").iterdir()
    assert d.name.startswith("scale-")
    names = sorted(p.name for p in d.iterdir())
    assert names == ["0-traced.mlir", "1-asctensor.mlir", "2-asctile.mlir", "3-ascbuf.mlir", "4-ascendc.mlir",
                     "host.cpp", "kernel.cpp"]
    assert "asctensor" in (d / "0-traced.mlir").read_text()
    assert "ascendc." in (d / "4-ascendc.mlir").read_text()
    assert "kernel_operator.h" in (d / "kernel.cpp").read_text()


def test_options_reach_the_passes():
    x = pyasc.randn(65536)
    c1 = pyasc.jit(scale, options={"cores": 1, "sync_style": "flags"}).compile(x)
    c8 = pyasc.jit(scale, options={"cores": 8}).compile(x)
    assert "ascendc.set_flag" in c1.as_text() and "<<<1>>>" in c1.as_text() and "<<<8>>>" in c8.as_text()
    assert c1.options.cores == 1 and c8.options.sync_style == "queue"
    with pytest.raises(pyasc.PyascError, match="unknown compile option"):
        pyasc.jit(scale, options={"corez": 2})


def test_set_target_changes_the_default_target():
    saved = pyasc.get_target()
    f = pyasc.jit(scale)
    try:
        x = pyasc.randn(16)
        assert f.compile(x).options.target == saved
        pyasc.set_target("ascend910b4")
        c = f.compile(x)
        assert c.options.target == "ascend910b4" and "ascend910b4" in c.as_text()
        assert pyasc.jit(scale, options={"target": "ascend910b1"}).compile(x).options.target == "ascend910b1"
        np.testing.assert_allclose(f(x).numpy(), pyasc.reference("mul", pyasc.reference("sigmoid", x), 3.0),
                                   rtol=1e-5, atol=1e-6)
    finally:
        pyasc.set_target(saved)
    assert f.cache_size() == 2


def test_fast_path_follows_target_and_precision():
    f = pyasc.jit(lambda x: x * 2.0)
    x = pyasc.ones(8)
    assert f(x).dtype is pyasc.float32 and f(x).dtype is pyasc.float32     # second call: fast path
    with pyasc.precision_scope(pyasc.float16):
        assert f(x).dtype is pyasc.float16
    saved = pyasc.get_target()
    try:
        pyasc.set_target("ascend910b3")
        f(x)
        assert f.cache_size() == 3
    finally:
        pyasc.set_target(saved)


def test_bench_dispatch_runs():
    import pathlib
    import subprocess
    import sys

    bench = pathlib.Path(__file__).parents[2] / "bench" / "dispatch.py"
    out = subprocess.run([sys.executable, str(bench), "--calls", "30"], capture_output=True, text=True,
                         check=True).stdout
    assert "cached pyasc.jit call" in out and "eager op" in out and "simulator run of the module" in out


def test_lifted_constants_on_a_non_default_stream():
    bias = pyasc.tensor([1.0, 2.0, 3.0])
    f = pyasc.jit(lambda x: x * 2 + bias)
    s = pyasc.Stream()
    with pyasc.stream(s):
        y = f(pyasc.ones(2, 3))
    s.synchronize()
    np.testing.assert_array_equal(y.numpy(), [[3, 4, 5], [3, 4, 5]])


def test_a_hit_is_served_without_compiling_and_prints_as_the_compiled_module(disk, monkeypatch):
    x = pyasc.randn(8, 40)
    first = pyasc.jit(scale)
    expected = first(x).numpy()
    compiled_text = str(first.compile(x).module)
    from pyasc.jit import Lowered

    def no_compile(*args, **kwargs):
        raise AssertionError("a program of the disk cache was compiled again")

    with monkeypatch.context() as m:
        m.setattr(Lowered, "compile", no_compile)
        again = _fresh(scale)
        np.testing.assert_array_equal(again(x).numpy(), expected)
        assert str(again.compile(x).module) == compiled_text
    assert cache.stats()["hits"] == 1


def test_repeated_eager_calls_run_their_program_directly_and_follow_what_changes():
    import torch

    eager.clear_cache()
    rng = np.random.default_rng(2)
    a_np, b_np = rng.standard_normal((3, 5)).astype(np.float32), rng.standard_normal(5).astype(np.float32)
    a, b = pyasc.tensor(a_np), pyasc.tensor(b_np)
    for _ in range(3):
        np.testing.assert_allclose((a * b).numpy(), (torch.from_numpy(a_np) * torch.from_numpy(b_np)).numpy(),
                                   rtol=1e-6)
    assert len(eager._direct) == 1
    with pyasc.precision_scope(pyasc.float16):       # a precision policy: the checked path
        assert (a * b).dtype is pyasc.float16
    assert (a * b).dtype is pyasc.float32
    h = pyasc.tensor(b_np.astype(np.float16))          # another dtype: promoted as torch promotes
    assert (a * h).dtype is pyasc.float32 and len(eager._direct) == 2
    g = pyasc.tensor(a_np, requires_grad=True)         # a gradient to record: the checked path
    (g * b).sum().backward()
    np.testing.assert_allclose(g.grad.numpy(), np.broadcast_to(b_np, a_np.shape), rtol=1e-6)
    with pytest.raises(pyasc.PyascError, match="mul"):  # shapes that do not broadcast: the error, every time
        a * pyasc.tensor(np.ones(4, np.float32))
    i = pyasc.tensor(np.arange(6, dtype=np.int32))     # Python numbers: their type and value in the key
    ti = torch.arange(6, dtype=torch.int32)
    for scalar in (2, 2.5, True, 2, 2.5, True):
        r = i * scalar
        expect = ti * scalar
        assert str(r.dtype).split(".")[-1] == str(expect.dtype).split(".")[-1]
        np.testing.assert_array_equal(r.numpy(), expect.numpy())
    eager.clear_cache()
    assert not eager._direct


def test_the_eager_cache_keeps_the_programs_used_last_and_recompiles_the_others(monkeypatch):
    import torch

    eager.clear_cache()
    monkeypatch.setattr(eager, "EAGER_PROGRAMS", 3)
    compiles = []
    real_jit = eager.jit
    monkeypatch.setattr(eager, "jit", lambda fn: compiles.append(fn) or real_jit(fn))
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal((n, 4)).astype(np.float32) for n in range(1, 6)]
    for _ in range(2):  # in the second round, each shape was dropped two shapes before: compiled again
        for a in arrays:
            got = pyasc.tensor(a).exp().numpy()
            np.testing.assert_allclose(got, torch.from_numpy(a).exp().numpy(), rtol=1e-6)
            assert eager.cache_info()["programs"] <= 3 and len(eager._direct) <= 3
    assert len(compiles) == 10 and eager.cache_info()["programs"] == 3
    for a in arrays[-3:]:  # the three used last are held: their calls compile nothing
        np.testing.assert_allclose(pyasc.tensor(a).exp().numpy(), torch.from_numpy(a).exp().numpy(), rtol=1e-6)
    assert len(compiles) == 10
    eager.clear_cache()
    monkeypatch.setattr(eager, "EAGER_PROGRAMS", 3)
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal((n, 4)).astype(np.float32) for n in range(1, 6)]
    for _ in range(2):  # the second round finds the first shapes gone and compiles them again
        for a in arrays:
            got = pyasc.tensor(a).exp().numpy()
            np.testing.assert_allclose(got, torch.from_numpy(a).exp().numpy(), rtol=1e-6)
            assert eager.cache_info()["programs"] <= 3 and len(eager._direct) <= 3
    assert eager.cache_info()["programs"] == 3
    kept = pyasc.tensor(arrays[-1])  # used last: still held, so its call compiles nothing
    before = eager.cache_info()["programs"]
    np.testing.assert_allclose(kept.exp().numpy(), torch.from_numpy(arrays[-1]).exp().numpy(), rtol=1e-6)
    assert eager.cache_info()["programs"] == before
    eager.clear_cache()
