"""End to end: every op and dtype compiled through the whole pipeline and simulated, against the
NumPy reference of the op table at the result dtype's tolerance, through ``pyasc.jit`` and
through eager execution. Skipped (with the reason) until the back end is importable."""

import numpy as np
import pytest

import pyasc
from pyasc import eager, ops
from pyasc.opdef import COMPARE, DEVICE
from pyasc.opdef import ELEMENTWISE as ELEMENTWISE_KIND

from .conftest import requires_backend

pytestmark = requires_backend

SHAPE = (3, 257)          # an odd size: the last tile is partial
DTYPES = [pyasc.float32, pyasc.float16, pyasc.bfloat16, pyasc.int32]

# input domains per op: (low, high) of uniform samples, or "nonzero" for divisors
DOMAINS = {
    "log": [(0.1, 4.0)], "sqrt": [(0.0, 4.0)], "rsqrt": [(0.1, 4.0)],
    "pow": [(0.5, 2.0), (-2.0, 2.0)], "div": [(-4.0, 4.0), "nonzero"], "exp": [(-4.0, 4.0)],
}


def sample(rng, dtype, domain, shape=SHAPE):
    if domain == "nonzero":
        mag = rng.uniform(0.5, 2.0, shape) if dtype.is_floating_point else rng.integers(1, 20, shape)
        data = mag * rng.choice([-1, 1], shape)
    elif dtype.is_floating_point:
        lo, hi = domain
        data = rng.uniform(lo, hi, shape)
    else:
        data = rng.integers(-100, 100, shape)
    return pyasc.tensor(data, dtype=dtype)


def inputs_for(name, dtype, seed=0):
    rng = np.random.default_rng(seed)
    op = ops.OPS[name]
    domains = DOMAINS.get(name, [(-3.0, 3.0)] * op.arity)
    return [sample(rng, dtype, d) for d in domains[: op.arity]]


def assert_matches(out, expected, dtype):
    rtol, atol = pyasc.tolerance(dtype)
    out = np.asarray(out)
    assert out.shape == expected.shape and out.dtype == expected.dtype
    np.testing.assert_allclose(out.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                               equal_nan=True)


ELEMENTWISE = {n: op for n, op in ops.OPS.items() if op.kind in (ELEMENTWISE_KIND, COMPARE)}
CASES = [(name, d) for name, op in ELEMENTWISE.items() if name != "cast" and op.eager == DEVICE and op.arity <= 2
         for d in DTYPES if d in op.dtypes]


def _fn(name):
    return getattr(pyasc, name)


@pytest.mark.parametrize("name,dtype", CASES, ids=[f"{n}-{d.name}" for n, d in CASES])
def test_jit_op(name, dtype):
    args = inputs_for(name, dtype)
    f = pyasc.jit(_fn(name))
    out = f(*args)
    expected = ops.reference(name, *args)
    assert isinstance(out, pyasc.Tensor) and out.dtype is pyasc.get_dtype(expected.dtype)
    assert_matches(out.numpy(), expected, out.dtype)


@pytest.mark.parametrize("name,dtype", CASES, ids=[f"{n}-{d.name}" for n, d in CASES])
def test_eager_op(name, dtype, simulator_eager):
    args = inputs_for(name, dtype, seed=1)
    out = _fn(name)(*args)
    expected = ops.reference(name, *args)
    assert_matches(out.numpy(), expected, out.dtype)
    before = eager.cache_info()["programs"]
    again = _fn(name)(*inputs_for(name, dtype, seed=2))       # same signature: nothing compiles
    assert eager.cache_info()["programs"] == before
    assert_matches(again.numpy(), ops.reference(name, *inputs_for(name, dtype, seed=2)), again.dtype)


@pytest.mark.parametrize("src", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("dst", DTYPES, ids=lambda d: d.name)
def test_cast(src, dst):
    rng = np.random.default_rng(3)
    x = pyasc.tensor(rng.uniform(-100, 100, SHAPE), dtype=src)
    out = pyasc.jit(lambda x: x.to(dst) * 1 if src is dst else x.to(dst))(x)
    expected = ops.reference("cast", x, dtype=dst)
    assert_matches(out.numpy(), expected, dst)


def test_int_true_division():
    rng = np.random.default_rng(7)
    a = sample(rng, pyasc.int32, (-3, 3))
    b = sample(rng, pyasc.int32, "nonzero")
    out = pyasc.jit(lambda a, b: (a / b, a / 4))(a, b)
    assert out[0].dtype is pyasc.float32 and out[1].dtype is pyasc.float32
    assert_matches(out[0].numpy(), ops.reference("div", a, b), pyasc.float32)
    assert_matches(out[1].numpy(), ops.reference("div", a, 4), pyasc.float32)


def test_gelu_tanh_and_scalars():
    x = sample(np.random.default_rng(4), pyasc.float16, (-3, 3))
    out = pyasc.jit(lambda x: pyasc.gelu(x, approximate="tanh"))(x)
    assert_matches(out.numpy(), ops.reference("gelu", x, approximate="tanh"), pyasc.float16)


def test_quickstart_program():
    rng = np.random.default_rng(5)
    x = pyasc.tensor(rng.standard_normal((64, 1000)), dtype=pyasc.float16)
    y = pyasc.tensor(rng.standard_normal((64, 1000)), dtype=pyasc.float16)

    @pyasc.jit
    def quickstart(x, y):
        return pyasc.gelu(x * y + 1.5)

    c = quickstart.lower(x, y).compile()
    outs, report = c.simulate(x, y)
    expected = ops.reference("gelu", ops.reference("add", ops.reference("mul", x, y), 1.5))
    assert_matches(outs, expected, pyasc.float16)
    assert report.seconds > 0 and report.cycles > 0 and report.pipe_busy
    assert c.kernels and c.name == "quickstart"


def test_broadcast_promotion_and_tuple_results():
    rng = np.random.default_rng(6)
    a = pyasc.tensor(rng.standard_normal((4, 1, 96)), dtype=pyasc.float16)
    b = pyasc.tensor(rng.standard_normal((5, 96)), dtype=pyasc.bfloat16)
    i = pyasc.tensor(rng.integers(-5, 5, (96,)), dtype=pyasc.int32)

    @pyasc.jit
    def f(a, b, i):
        return a * b + i, pyasc.relu(i * 3 - 1), a - 0.25

    s, r, d = f(a, b, i)
    ref_s = ops.reference("add", ops.reference("mul", a, b), i)
    assert s.shape == (4, 5, 96) and s.dtype is pyasc.float32
    assert_matches(s.numpy(), ref_s, pyasc.float32)
    assert_matches(r.numpy(), ops.reference("relu", ops.reference("sub", ops.reference("mul", i, 3), 1)),
                   pyasc.int32)
    assert_matches(d.numpy(), ops.reference("sub", a, 0.25), pyasc.float16)


def test_jit_cache_per_signature():
    f = pyasc.jit(lambda x: x + 1)
    f(pyasc.ones(8))
    f(pyasc.zeros(8))
    assert f.cache_size() == 1
    f(pyasc.ones(9))
    f(pyasc.ones(8, dtype=pyasc.float16))
    assert f.cache_size() == 3


def test_lowered_levels_and_sources(tmp_path):
    lowered = pyasc.jit(lambda x, y: pyasc.sigmoid(x - y)).lower(pyasc.ones(16, 64), pyasc.ones(64))
    for level in ("asctensor", "asctile", "ascbuf", "ascendc"):
        assert "builtin.module" in lowered.as_text(level)
    assert "asctensor.kernel" in lowered.as_text("asctensor")
    c = lowered.compile()
    assert "kernel_operator.h" in c.ascendc_source()
    assert "aclrtMalloc" in c.host_source()
    paths = c.write_project(tmp_path / "proj")
    assert paths and (tmp_path / "proj" / "CMakeLists.txt").exists()
    with pytest.raises(pyasc.PyascError, match="exists and is not empty"):
        c.write_project(tmp_path / "proj")
    c.write_project(tmp_path / "proj", force=True)


def test_compiled_simulate_accepts_numpy_and_returns_numpy():
    c = pyasc.jit(lambda x: x * x).lower(pyasc.ones(32)).compile()
    out, report = c.simulate(np.arange(32, dtype=np.float32))
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, np.arange(32, dtype=np.float32) ** 2)
