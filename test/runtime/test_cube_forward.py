"""Operand forwarding in cube kernels' straight-line functions (``runtime.cube_forward``): every call on new data
matches PyTorch, and the forwarded functions give the same bits as the functions with forwarding off."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc
from pyasc.runtime import Simulator, cube_direct, cube_forward, hazards, tape
from pyasc.runtime.blas import single_thread

# (program, input shapes, dtype, PyTorch's program, whether every Mmad operand is a view of an argument)
PROGRAMS = {
    "matmul_f32": (lambda a, b: a @ b, [(96, 128), (128, 80)], np.float32, lambda a, b: a @ b, True),
    "matmul_f16": (lambda a, b: a @ b, [(64, 256), (256, 96)], np.float16,
                   lambda a, b: (a.float() @ b.float()).half(), True),
    "relu_bias_f32": (lambda a, b, c: pyasc.relu(a @ b + c), [(64, 96), (96, 128), (128,)], np.float32,
                      lambda a, b, c: torch.relu(a @ b + c), True),
    "gemv_f32": (lambda a, b: a @ b, [(1, 256), (256, 384)], np.float32, lambda a, b: a @ b, False),
    "ragged_f32": (lambda a, b: a @ b, [(50, 70), (70, 30)], np.float32, lambda a, b: a @ b, False),
    "matmul_f32_large": (lambda a, b: a @ b, [(256, 1024), (1024, 512)], np.float32, lambda a, b: a @ b, True),
    "gemv_f32_long": (lambda a, b: a @ b, [(1, 2048), (2048, 2048)], np.float32, lambda a, b: a @ b, False),
}
# the programs whose operands BLAS reads in place (``cube_direct``): float32's, but the ragged one's (its operands
# are padded in L1: none is forwarded)
IN_PLACE = {"matmul_f32", "relu_bias_f32", "gemv_f32", "matmul_f32_large", "gemv_f32_long"}
CALLS = 8  # traced, replayed, recorded, taped twice, then straight-line


def _runs(name: str, forward: bool, monkeypatch) -> tuple[list, list]:
    """The outputs of ``CALLS`` calls on new data (the same data for either mode) and the functions forwarded."""
    monkeypatch.setattr(tape, "RECORD_AFTER", 2)
    monkeypatch.setattr(tape, "STRAIGHT_AFTER", 2)
    monkeypatch.setattr(cube_forward, "FORWARD", forward)
    made = []
    real = cube_forward._forwarded

    def spy(*args):
        made.append(real(*args))
        return made[-1]

    monkeypatch.setattr(cube_forward, "_forwarded", spy)
    real_multiply = cube_direct.multiply
    monkeypatch.setattr(cube_direct, "multiply", lambda *args: made.append("in place") or real_multiply(*args))
    fn, shapes, dtype, ref, _ = PROGRAMS[name]
    compiled = pyasc.jit(fn).compile(*[pyasc.tensor(np.zeros(s, dtype)) for s in shapes])
    sim = Simulator(compiled.module)
    rng = np.random.default_rng(5)
    outs = []
    for _ in range(CALLS):
        arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
        out = np.full(compiled.outputs[0].shape, np.nan, dtype)
        report = sim.run(compiled.name, [*arrays, *compiled.constants, out])
        assert report.findings == []
        expect = ref(*[torch.from_numpy(a) for a in arrays]).numpy().astype(np.float64)
        k = shapes[0][-1]
        tol = k * 2 ** -22 if dtype == np.float32 else 2 ** -9
        np.testing.assert_allclose(out.astype(np.float64), expect, rtol=tol, atol=tol * np.abs(expect).max())
        outs.append(out)
    return outs, made


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_forwarded_operands_match_torch_and_the_bits_without_forwarding(name, monkeypatch):
    forwarded, made = _runs(name, True, monkeypatch)
    assert made, "no straight-line function was made"
    assert ("in place" in made) == (name in IN_PLACE)
    made = [m for m in made if m != "in place"]
    if PROGRAMS[name][4]:
        assert all(m is not None for m in made), "a function was not forwarded"
        # nothing but Mmads, Fixpipes and bookkeeping is left: no copy into L1, L0A or L0B
        text = made[0][0][made[0][0].rindex("def _tape_straight_"):]
        assert "src_a=(a" in text and "_tp = " not in text and "_lp = " not in text
    plain, made_off = _runs(name, False, monkeypatch)
    assert made_off == []
    for a, b in zip(forwarded, plain):
        assert np.array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("name", ["gemv_f32", "gemv_f32_long"])
def test_a_padded_operand_is_forwarded_with_its_zero_rows(name, monkeypatch):
    """A GEMV's A is one row of 16 (zeros below it, from a fill of L1): both operands are forwarded, and no copy into
    L1 or L0A is left (the rows of zeros are the chain's: ``Chain.settle``)."""
    _, made = _runs(name, True, monkeypatch)
    forwarded = [m for m in made if m is not None and m != "in place"]
    assert forwarded
    text = forwarded[0][0][forwarded[0][0].rindex("def _tape_straight_"):]
    assert "src_a=(a" in text and "src_b=(a" in text and "_lp = " not in text and ".fill(" not in text


def _aliased_runs(forward: bool, monkeypatch) -> tuple[list, list]:
    """Eight calls of a float32 ``a @ b`` whose output is its input ``a``, and the functions forwarded."""
    monkeypatch.setattr(tape, "RECORD_AFTER", 2)
    monkeypatch.setattr(tape, "STRAIGHT_AFTER", 2)
    monkeypatch.setattr(cube_forward, "FORWARD", forward)
    monkeypatch.setattr(hazards, "_policy", "ignore")  # cores race on the rows of A they write over
    made = []
    real = cube_forward._forwarded
    monkeypatch.setattr(cube_forward, "_forwarded", lambda *args: made.append(real(*args)) or made[-1])
    n = 64
    compiled = pyasc.jit(lambda a, b: a @ b).compile(*[pyasc.tensor(np.zeros((n, n), np.float32))] * 2)
    sim = Simulator(compiled.module)
    rng = np.random.default_rng(1)
    outs = []
    for _ in range(CALLS):
        a, b = (rng.standard_normal((n, n)).astype(np.float32) for _ in range(2))
        sim.run(compiled.name, [a, b, *compiled.constants, a])
        outs.append(a)
    return outs, made


def test_an_output_that_is_an_input_runs_the_function_as_recorded(monkeypatch):
    """The output written over the input A: the forwarded function, which reads A later than the recorded one,
    sees that they share memory and runs as recorded, with the same bits."""
    forwarded, made = _aliased_runs(True, monkeypatch)
    assert made and all(m is not None and "_aliased(args, [0, 1], [2])" in m[0] for m in made)
    plain, _ = _aliased_runs(False, monkeypatch)
    for a, b in zip(forwarded, plain):
        assert np.array_equal(a.view(np.uint8), b.view(np.uint8))


RANDOM_OPS = {  # program, NumPy's, input shapes from (M, K, N)
    "a @ b": (lambda a, b: a @ b, lambda a, b: a @ b, lambda m, k, n: [(m, k), (k, n)]),
    "a.T @ b": (lambda a, b: a.T @ b, lambda a, b: a.T @ b, lambda m, k, n: [(k, m), (k, n)]),
    "a @ b.T": (lambda a, b: a @ b.T, lambda a, b: a @ b.T, lambda m, k, n: [(m, k), (n, k)]),
    "relu(a @ b + c)": (lambda a, b, c: pyasc.relu(a @ b + c), lambda a, b, c: np.maximum(a @ b + c, 0),
                        lambda m, k, n: [(m, k), (k, n), (n,)]),
    "batched": (lambda a, b: a @ b, lambda a, b: a @ b, lambda m, k, n: [(3, m, k), (3, k, n)]),
}
SIZES = (1, 16, 32, 48, 64, 80, 96, 128, 160, 200, 256, 320, 512, 1024)


def _random_outputs(compiled, shapes, dtype, forward: bool, seed: int, monkeypatch) -> list:
    monkeypatch.setattr(cube_forward, "FORWARD", forward)
    sim = Simulator(compiled.module)
    rng = np.random.default_rng(seed)
    outs = []
    for _ in range(4):  # straight-line from the second call (RECORD_AFTER = STRAIGHT_AFTER = 1)
        arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
        out = np.full(compiled.outputs[0].shape, np.nan, dtype)
        sim.run(compiled.name, [*arrays, *compiled.constants, out])
        outs.append((arrays, out))
    return outs


def test_random_products_give_the_same_bits_with_forwarding(request, monkeypatch):
    """Random products (five forms, sizes from 1 to 320, float16 and float32), four calls each on new data: the same
    bits with forwarding on and off, and NumPy's float64 product at the dtype's tolerance. 12 programs; 1,000 with
    ``--random-long``."""
    monkeypatch.setattr(tape, "RECORD_AFTER", 1)
    monkeypatch.setattr(tape, "STRAIGHT_AFTER", 1)
    rng = np.random.default_rng(17)
    for trial in range(1000 if request.config.getoption("--random-long") else 12):
        m, k, n = (int(x) for x in rng.choice(SIZES, 3))
        name = list(RANDOM_OPS)[int(rng.integers(len(RANDOM_OPS)))]
        dtype = (np.float16, np.float32)[int(rng.integers(2))]
        fn, ref, shapes_of = RANDOM_OPS[name]
        shapes = shapes_of(m, k, n)
        compiled = pyasc.jit(fn).compile(*[pyasc.tensor(np.zeros(s, dtype)) for s in shapes])
        on = _random_outputs(compiled, shapes, dtype, True, trial, monkeypatch)
        off = _random_outputs(compiled, shapes, dtype, False, trial, monkeypatch)
        for (arrays, a), (_, b) in zip(on, off):
            assert np.array_equal(a.view(np.uint8), b.view(np.uint8)), (name, shapes, dtype)
            expect = ref(*[x.astype(np.float64) for x in arrays])
            tol = (2e-3 if dtype == np.float16 else 1e-5 * np.sqrt(k)) * max(1.0, np.abs(expect).max())
            assert np.abs(a.astype(np.float64) - expect).max() <= tol, (name, shapes, dtype)


def _sparse_a_runs(forward: bool, monkeypatch) -> tuple[list, int]:
    """Four calls of a float32 (256, 1024) @ (1024, 512) whose A is zero in about half its columns, and how many
    chains were multiplied in place."""
    monkeypatch.setattr(tape, "RECORD_AFTER", 1)
    monkeypatch.setattr(tape, "STRAIGHT_AFTER", 1)
    monkeypatch.setattr(cube_forward, "FORWARD", forward)
    in_place = []
    real = cube_direct.multiply
    monkeypatch.setattr(cube_direct, "multiply", lambda *args: in_place.append(1) or real(*args))
    shapes = [(256, 1024), (1024, 512)]
    compiled = pyasc.jit(lambda a, b: a @ b).compile(*[pyasc.tensor(np.zeros(s, np.float32)) for s in shapes])
    sim = Simulator(compiled.module)
    rng = np.random.default_rng(3)
    outs = []
    for _ in range(4):
        a, b = (rng.standard_normal(s).astype(np.float32) for s in shapes)
        a[:, rng.random(1024) < 0.5] = 0
        out = np.full((256, 512), np.nan, np.float32)
        sim.run(compiled.name, [a, b, *compiled.constants, out])
        expect = torch.from_numpy(a).double() @ torch.from_numpy(b).double()
        np.testing.assert_allclose(out, expect.numpy(), rtol=1e-5, atol=1e-4)
        outs.append(out)
    return outs, len(in_place)


def test_an_a_with_zero_columns_is_copied_as_without_forwarding(monkeypatch):
    """A chain whose A is sparse enough to be multiplied without its zero columns (``sparse_parts``) is not read in
    place: its product, over the same columns, has the bits of the one with forwarding off."""
    forwarded, in_place = _sparse_a_runs(True, monkeypatch)
    assert in_place == 0
    plain, _ = _sparse_a_runs(False, monkeypatch)
    for a, b in zip(forwarded, plain):
        assert np.array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("name", list(RANDOM_OPS))
@pytest.mark.parametrize("m", [1, 3, 15])
def test_few_rows_of_a_give_the_same_bits_with_forwarding(m, name, dtype, monkeypatch):
    """Products whose A has fewer than 16 rows (the rest of its block zeros, left out of the product: ``cube_direct``),
    four calls each on new data: the same bits with forwarding on and off, and NumPy's float64 product."""
    monkeypatch.setattr(tape, "RECORD_AFTER", 1)
    monkeypatch.setattr(tape, "STRAIGHT_AFTER", 1)
    fn, ref, shapes_of = RANDOM_OPS[name]
    k, n = 300, 200
    shapes = shapes_of(m, k, n)
    compiled = pyasc.jit(fn).compile(*[pyasc.tensor(np.zeros(s, dtype)) for s in shapes])
    on = _random_outputs(compiled, shapes, dtype, True, m, monkeypatch)
    off = _random_outputs(compiled, shapes, dtype, False, m, monkeypatch)
    for (arrays, a), (_, b) in zip(on, off):
        assert np.array_equal(a.view(np.uint8), b.view(np.uint8))
        expect = ref(*[x.astype(np.float64) for x in arrays])
        tol = (2e-3 if dtype == np.float16 else 1e-5 * np.sqrt(k)) * max(1.0, np.abs(expect).max())
        assert np.abs(a.astype(np.float64) - expect).max() <= tol


def test_an_infinity_in_b_makes_the_nans_of_a_full_product(monkeypatch):
    """A one-row float32 A times a B holding an infinity and a NaN: the infinities and NaNs are NumPy's, with
    forwarding on and off."""
    monkeypatch.setattr(tape, "RECORD_AFTER", 1)
    monkeypatch.setattr(tape, "STRAIGHT_AFTER", 1)
    shapes = [(1, 256), (256, 384)]
    compiled = pyasc.jit(lambda a, b: a @ b).compile(*[pyasc.tensor(np.zeros(s, np.float32)) for s in shapes])
    outs = {}
    for forward in (True, False):
        monkeypatch.setattr(cube_forward, "FORWARD", forward)
        sim = Simulator(compiled.module)
        rng = np.random.default_rng(8)
        outs[forward] = []
        for call in range(3):
            a, b = (rng.standard_normal(s).astype(np.float32) for s in shapes)
            b[5 + call, 7] = np.inf
            b[9, 300 - call] = np.nan
            a[0, 5 + call] = -1.0
            out = np.full((1, 384), 0.5, np.float32)
            sim.run(compiled.name, [a, b, *compiled.constants, out])
            expect = a.astype(np.float64) @ b.astype(np.float64)
            assert np.array_equal(np.isnan(out), np.isnan(expect)) and np.array_equal(np.isinf(out), np.isinf(expect))
            assert out[0, 7] == -np.inf
            finite = np.isfinite(expect)
            np.testing.assert_allclose(out[finite], expect[finite], rtol=1e-4, atol=1e-3)
            outs[forward].append(out)
    for x, y in zip(outs[True], outs[False]):
        assert np.array_equal(x.view(np.uint8), y.view(np.uint8))


def test_rows_of_zeros_are_left_out_only_while_the_product_is_finite():
    """``cube_direct._trimmed``: A's first rows alone give the product's rows (the others zeros, as zero rows times a
    finite B); with an infinity in B it declines, as the rows of zeros would be NaNs (0 x inf)."""
    rng = np.random.default_rng(2)
    a = np.zeros((3, 32, 64), np.float32)
    a[:, :19] = rng.standard_normal((3, 19, 64))
    b = rng.standard_normal((3, 64, 48)).astype(np.float32)
    assert cube_direct.rows_in_use(a) == 19
    out = np.full((3, 32, 48), np.nan, np.float32)
    assert cube_direct._trimmed(a, b, out, 19)
    np.testing.assert_allclose(out, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5)
    assert not out[:, 19:].any()
    b[1, 3, 5] = np.inf
    assert not cube_direct._trimmed(a, b, np.empty((3, 32, 48), np.float32), 19)
    with np.errstate(invalid="ignore"):
        full = a.astype(np.float64) @ b.astype(np.float64)
    assert np.isnan(full[1, 19:, 5]).all()  # what the rows left out would have held


def test_one_gemv_over_the_cores_gives_each_cores_bits():
    """``cube_direct._one_row``: one row of A times the cores' B's side by side, as one GEMV in two halves, gives each
    core's columns with the bits of the core's own GEMV of its copied B (one BLAS thread), for random sizes,
    offsets and odd and even core counts."""
    rng = np.random.default_rng(11)
    for _ in range(25):
        k, n16, kc, off = int(rng.integers(8, 3000)), 16 * int(rng.integers(1, 16)), int(rng.integers(2, 25)), \
            int(rng.integers(0, 8))
        arg = rng.standard_normal((k + 2, kc * n16 + 40)).astype(np.float32)
        whole = arg[1:k + 1, off:off + kc * n16]
        b = np.lib.stride_tricks.as_strided(whole, (kc, 1, k, n16), (n16 * 4, 0) + whole.strides)
        row = rng.standard_normal(k).astype(np.float32)
        a = np.lib.stride_tricks.as_strided(row, (kc, 1, 1, k), (0, 0, 0, 4))
        out = np.full((kc, 1, 1, n16), np.nan, np.float32)
        assert cube_direct._one_row(a, b, out)
        with single_thread():
            each = [row[None] @ np.ascontiguousarray(whole[:, c * n16:(c + 1) * n16]) for c in range(kc)]
        assert np.array_equal(out.reshape(kc, n16).view(np.int32), np.concatenate(each).view(np.int32))


def test_only_rows_of_constant_zeros_are_left_out_of_a_forwarded_a():
    """``cube_forward._rows_from_arguments``: A's last rows are left out of its view when every unit of them is
    ``ZERO`` (zero bytes whatever the arguments hold); a row of zeros that an argument made (-2) is kept (and is no
    argument's view: A is then not forwarded), and so are all rows when the last holds an argument's unit or A has
    more than one block of rows."""
    units = np.full((4, 1, 16, 2, 16), cube_forward.ZERO, np.int64)
    units[:, :, :3] = np.arange(4 * 3 * 2 * 16).reshape(4, 1, 3, 2, 16)
    assert cube_forward._rows_from_arguments(units).shape == (4, 1, 3, 2, 16)
    made = units.copy()
    made[2, 0, 9, 1, 5] = -2
    assert cube_forward._rows_from_arguments(made).shape == (4, 1, 10, 2, 16)
    one = units.copy()
    one[0, 0, 15, 0, 0] = 7
    assert cube_forward._rows_from_arguments(one).shape == units.shape
    two = np.concatenate([units, units], axis=1)
    assert cube_forward._rows_from_arguments(two).shape == two.shape
