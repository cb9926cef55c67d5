"""Data movement inside ``pyasc.jit`` (transpose/permute, strided slices, cat, stack, bool casts),
compiled, simulated and compared with NumPy; every report must hold no findings.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyasc
from pyasc.errors import PyascError

DTYPES = {"float32": pyasc.float32, "float16": pyasc.float16, "int32": pyasc.int32}


def _run(fn, *tensors, style="queue"):
    compiled = pyasc.jit(fn, options={"sync_style": style}).lower(*tensors).compile()
    out, report = compiled.simulate(*tensors)
    assert report.findings == [], report.findings
    return (tuple(np.asarray(o) for o in out) if isinstance(out, tuple | list) else np.asarray(out)), compiled


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-50, 50, size=shape)
    return pyasc.tensor(a.astype(np.int32)) if dtype == "int32" else pyasc.tensor(a / 4, dtype=DTYPES[dtype])


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("shape", [(37, 45), (5, 300), (130, 7)])
def test_transpose_2d(dtype, shape):
    x = _data(shape, dtype)
    got, _ = _run(lambda x: x.t(), x)
    np.testing.assert_array_equal(got, x.numpy().T)


@pytest.mark.parametrize("dims", [(0, 1), (0, 2), (1, 2)])
@pytest.mark.parametrize("style", ["queue", "flags"])
def test_transpose_3d_any_two_dims(dims, style):
    x = _data((6, 11, 19), "float32", 1)
    got, _ = _run(lambda x: x.transpose(*dims), x, style=style)
    np.testing.assert_array_equal(got, np.swapaxes(x.numpy(), *dims))


@pytest.mark.parametrize("perm", [(2, 0, 3, 1), (3, 2, 1, 0), (0, 1, 3, 2)])
def test_permute_4d(perm):
    x = _data((3, 4, 5, 9), "float16", 2)
    got, _ = _run(lambda x: x.permute(*perm), x)
    np.testing.assert_array_equal(got, x.numpy().transpose(perm))


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("shape", [(2, 3136, 256), (3, 700, 48), (1, 50, 1000)])
def test_channels_last_to_first_takes_tall_tiles(dtype, shape):
    """[N][HW][C] -> [N][C][HW]: the input rows of a tile column are C apart, so a wide tile would load
    one 32 B block per element; the tiler takes tall, narrower tiles instead."""
    x = _data(shape, dtype, 4)
    got, compiled = _run(lambda x: x.permute(0, 2, 1), x)
    np.testing.assert_array_equal(got, x.numpy().transpose(0, 2, 1))


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("shape,perm", [((256, 16, 16, 3, 3), (0, 1, 3, 4, 2)), ((64, 1, 16, 7, 7), (0, 1, 3, 4, 2)),
                                        ((101, 8, 5), (0, 2, 1)), ((1000, 24, 2), (0, 2, 1)),
                                        ((3, 33, 16, 9), (0, 1, 3, 2))])
@pytest.mark.parametrize("style", ["queue", "flags"])
def test_a_batch_of_small_transposes_moves_whole_blocks(dtype, shape, perm, style):
    """[X][C][T] -> [X][T][C] with small dense blocks (a convolution's weights made [OC][C1][KH][KW][C0]): tiles of
    whole blocks, one contiguous load and store each and a gather whose table is built from one block's runs;
    the last tile partly filled where the blocks do not divide evenly."""
    x = _data(shape, dtype, 5)
    got, _ = _run(lambda x: x.permute(*perm), x, style=style)
    np.testing.assert_array_equal(got, x.numpy().transpose(perm))


def test_convolution_weights_move_in_whole_blocks():
    """[256 * 16][16][9] -> [256 * 16][9][16] (3x3 weights in C0 = 16 blocks): the table's rows are blocks of 9 runs
    of 16 columns: a run's columns 18 bytes apart, its runs 2 bytes apart."""
    x = _data((256, 16, 16, 3, 3), "float16", 6)
    fn = pyasc.jit(lambda x: x.permute(0, 1, 3, 4, 2))
    tables = [op for op in fn.lower(x).module("asctile").walk() if op.name == "asctile.gather_offsets"]
    assert [(t.cols.value.data, t.col_bytes.value.data, t.blocks.value.data, t.block_bytes.value.data)
            for t in tables] == [(16, 18, 9, 2)]


def test_T_and_mT():
    x = _data((4, 6, 10), "int32", 3)
    (a, b), _ = _run(lambda x: (x.T + 0, x.mT + 0), x)
    np.testing.assert_array_equal(a, x.numpy().transpose(2, 1, 0))
    np.testing.assert_array_equal(b, x.numpy().swapaxes(-1, -2))


def test_transpose_of_size_one_dims_is_a_reshape():
    x = _data((1, 33), "float32")
    got, compiled = _run(lambda x: x.t() * 2, x)
    np.testing.assert_array_equal(got, x.numpy().T * 2)
    assert "asctensor.transpose" not in pyasc.jit(lambda x: x.t() * 2).lower(x).as_text()


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_fused_transpose_elementwise(dtype):
    x, y = _data((33, 70), dtype, 4), _data((70, 33), dtype, 5)
    got, compiled = _run(lambda x, y: (x.T * 2 + y).T - 1, x, y)
    want = (x.numpy().T * 2 + y.numpy()).T - 1
    np.testing.assert_array_equal(got, want.astype(got.dtype))
    assert "AscendC::TransDataTo5HD" in compiled.ascendc_source()  # the transposes, on chip


@pytest.mark.parametrize("index", [np.s_[:, ::2], np.s_[::3], np.s_[1::3, 2:40:2], np.s_[::2, 3],
                                   np.s_[..., 1::5]])
@pytest.mark.parametrize("dtype", ["float16", "int32"])
def test_strided_slices(index, dtype):
    x = _data((29, 45), dtype, 6)
    got, _ = _run(lambda x: x[index] + 1, x)
    np.testing.assert_array_equal(got, x.numpy()[index] + 1)


def test_strided_slice_3d_step_on_last_dim():
    x = _data((3, 8, 21), "float32", 7)
    got, _ = _run(lambda x: x[:, ::3, ::2] * 2, x)
    np.testing.assert_array_equal(got, x.numpy()[:, ::3, ::2] * 2)


@pytest.mark.parametrize("index", [np.s_[:, ::-1], np.s_[::-1], np.s_[::-1, ::-1], np.s_[5:0:-2, 40:3:-3],
                                   np.s_[::-3, 1::2]])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_negative_steps(index, dtype):
    x = _data((29, 45), dtype, 8)
    got, _ = _run(lambda x: x[index] + 1, x)
    np.testing.assert_array_equal(got, x.numpy()[index] + 1)


@pytest.mark.parametrize("shape,index", [((10000,), np.s_[::-1]), ((100,), np.s_[90:2:-7]),
                                         ((3, 8, 21), np.s_[::-1, :, ::-1]), ((4, 20000), np.s_[:, ::-1])])
def test_negative_steps_long_rows_and_outer_dims(shape, index):
    x = _data(shape, "float32", 9)
    got, _ = _run(lambda x: x[index] * 2, x)
    np.testing.assert_array_equal(got, x.numpy()[index] * 2)


@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_cat_unequal_sizes(dim, dtype):
    shapes = [(5, 7), (3, 7), (9, 7)] if dim == 0 else [(6, 5), (6, 1), (6, 13)]
    xs = [_data(s, dtype, i) for i, s in enumerate(shapes)]
    got, _ = _run(lambda a, b, c: pyasc.cat([a, b * 2, c], dim) + 1, *xs)
    want = np.concatenate([xs[0].numpy(), xs[1].numpy() * 2, xs[2].numpy()], dim) + 1
    np.testing.assert_array_equal(got, want.astype(got.dtype))


def test_cat_3d_middle_dim_promotes_dtypes():
    a, b = _data((2, 3, 17), "float16", 1), _data((2, 4, 17), "float32", 2)
    got, _ = _run(lambda a, b: pyasc.cat([a, b], 1), a, b)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.concatenate([a.numpy().astype(np.float32), b.numpy()], 1))


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_stack(dim):
    a, b = _data((4, 9), "float32", 1), _data((4, 9), "float32", 2)
    got, _ = _run(lambda a, b: pyasc.stack([a, b + 1, a], dim), a, b)
    np.testing.assert_array_equal(got, np.stack([a.numpy(), b.numpy() + 1, a.numpy()], dim))


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_bool_casts(dtype):
    x = _data((3, 37), dtype, 8)
    got, _ = _run(lambda x: x.to(pyasc.bool), x)
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, x.numpy() != 0)
    (f, i), _ = _run(lambda x: ((x > 0).to(x.dtype) * 3, (x < 0).to(pyasc.int32) - 1), x)
    np.testing.assert_array_equal(f, (x.numpy() > 0).astype(f.dtype) * 3)
    np.testing.assert_array_equal(i, (x.numpy() < 0).astype(np.int32) - 1)


def test_errors_name_op_and_shapes():
    a, b = _data((4, 5), "float32"), _data((3, 6), "float32")
    with pytest.raises(PyascError, match=r"cat.*\(4, 5\)"):
        pyasc.jit(lambda a, b: pyasc.cat([a, b], 0)).lower(a, b)
    with pytest.raises(PyascError, match="permute"):
        pyasc.jit(lambda a: a.permute(0, 0)).lower(a)
    with pytest.raises(PyascError, match="transpose"):
        pyasc.jit(lambda a: a.transpose(0, 2)).lower(a)


def test_eager_views_still_share_storage():
    x = pyasc.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    t = x.T
    x[0, 1] = 100
    assert t.numpy()[1, 0] == 100


def test_eager_copies_run_on_the_device_once_compiled():
    """Eager cat, stack and topk run as compiled programs on the simulated device, compiled once per
    signature; bool tensors (no device lowering) are joined on the host."""
    from pyasc import eager

    rng = np.random.default_rng(12)
    x = pyasc.tensor(rng.standard_normal((5, 7)).astype(np.float32))
    y = pyasc.tensor(rng.standard_normal((5, 3)).astype(np.float32))
    start = eager.cache_info()["programs"]
    joined = pyasc.cat([x, y], 1)
    assert eager.cache_info()["programs"] == start + 1
    np.testing.assert_array_equal(pyasc.cat([x, y], 1).numpy(), np.concatenate([x.numpy(), y.numpy()], 1))
    np.testing.assert_array_equal(joined.numpy(), np.concatenate([x.numpy(), y.numpy()], 1))
    assert eager.cache_info()["programs"] == start + 1
    np.testing.assert_array_equal(pyasc.stack([x, x], -1).numpy(), np.stack([x.numpy(), x.numpy()], -1))
    values, indices = pyasc.topk(x, 3)
    order = np.argsort(-x.numpy(), axis=-1, kind="stable")[:, :3]
    np.testing.assert_array_equal(indices.numpy(), order)
    np.testing.assert_array_equal(values.numpy(), np.take_along_axis(x.numpy(), order, -1))
    assert eager.cache_info()["programs"] == start + 3
    b = pyasc.tensor([[True, False]])
    np.testing.assert_array_equal(pyasc.cat([b, b], 0).numpy(), [[True, False], [True, False]])
