"""``tile-pool``'s channels-last form (``asctensor.max_pool2d ... channels_last``) through the whole pipeline,
element for element against PyTorch: kernels, strides and paddings whose first or last output pixels read past
the image, float16 and float32, and the largest rows ``analysis.pool.nhwc_pool_fits`` admits (which must then
plan in UB)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from pyasc.dialects import asctensor
from pyasc.dialects.target import get_target, DEFAULT_TARGET
from pyasc.jit import make_options
from pyasc.lowering.analysis.pool import nhwc_pool_fits
from pyasc.lowering.errors import TilingError
from pyasc.lowering.pipeline import LEVELS, run_stage
from pyasc.runtime.simulator import parse_module, simulate


def _module(shape, kernel, stride, padding, dt):
    n, h, w, c = shape
    oh, ow = ((size + 2 * padding - kernel) // stride + 1 for size in (h, w))
    x, r = f"tensor<{n}x{h}x{w}x{c}x{dt}>", f"tensor<{n}x{oh}x{ow}x{c}x{dt}>"
    return parse_module(f"""func.func @pool(%x: {x}) -> {r} {{
  %0 = asctensor.max_pool2d %x kernel [{kernel}, {kernel}] stride [{stride}, {stride}] padding [{padding}, {padding}] channels_last : {x} -> {r}
  func.return %0 : {r}
}}""")


CASES = [  # (N, H, W, C), kernel, stride, padding
    ((2, 16, 16, 64), 3, 2, 1), ((1, 9, 11, 16), 3, 1, 1), ((2, 10, 10, 32), 2, 2, 0), ((1, 12, 13, 16), 3, 3, 1),
    ((1, 7, 9, 48), 5, 2, 2), ((3, 5, 6, 16), 2, 1, 1), ((1, 8, 8, 16), 1, 1, 0), ((1, 112, 112, 64), 3, 2, 1),
    ((1, 6, 6, 12), 3, 2, 1),  # runs of 24 B: refused with a clear error
]


@pytest.mark.parametrize("dt", ["f16", "f32"])
@pytest.mark.parametrize("shape,kernel,stride,padding", CASES)
def test_channels_last_pool_like_torch(shape, kernel, stride, padding, dt):
    module = _module(shape, kernel, stride, padding, dt)
    pool = module.body.block.ops.first.body.block.ops.first
    if not nhwc_pool_fits(asctensor.MaxPool2dOp(_nchw_value(pool), *pool.params()), get_target(DEFAULT_TARGET)):
        with pytest.raises(TilingError, match="channels-last max_pool2d (of tensor<.*> needs .* B of UB|gathers "
                                              "runs of whole 32 B)"):
            for level in LEVELS:
                run_stage(module, level, make_options(None))
        return
    for level in LEVELS:
        module = run_stage(module, level, make_options(None))
    npdt = np.float16 if dt == "f16" else np.float32
    x = np.random.default_rng(sum(shape) + kernel).standard_normal(shape).astype(npdt)
    x.reshape(-1)[::97] = np.inf  # an infinity wins its windows
    (_, out), _ = simulate(module, x, raise_errors=True)
    ref = F.max_pool2d(torch.from_numpy(x.astype(np.float32)).permute(0, 3, 1, 2), kernel, stride, padding)
    np.testing.assert_array_equal(out.astype(np.float32), ref.permute(0, 2, 3, 1).numpy())


@pytest.mark.parametrize("c", [16, 32, 64, 96, 128])
def test_the_widest_admitted_rows_plan_in_ub(c):
    """For each channel count, the widest image ``nhwc_pool_fits`` admits for a 3x3/2 pool compiles (its buffers
    plan in UB), and the next one is refused."""
    spec = get_target(DEFAULT_TARGET)
    widest = None
    for w in range(16, 1024, 16):
        pool = _module((1, 8, w, c), 3, 2, 1, "f16").body.block.ops.first.body.block.ops.first
        nchw = asctensor.MaxPool2dOp(_nchw_value(pool), *pool.params())
        if not nhwc_pool_fits(nchw, spec):
            break
        widest = w
    assert widest is not None
    module = _module((1, 8, widest, c), 3, 2, 1, "f16")
    for level in LEVELS:
        module = run_stage(module, level, make_options(None))


def _nchw_value(pool):
    """A stand-in NCHW value of the pool's input shape (the pool's NCHW form is what ``nhwc_pool_fits`` reads)."""
    from xdsl.dialects.builtin import TensorType
    from xdsl.ir import Block

    n, h, w, c = pool.input.type.get_shape()
    return Block(arg_types=[TensorType(pool.input.type.element_type, [n, c, h, w])]).args[0]
