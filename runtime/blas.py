"""Single-threaded BLAS for the simulator's many small matmuls.

NumPy's OpenBLAS splits every matmul over all cores; for the cube's 128x64x256 tiles the thread
hand-off costs more than the product (10x slower on a loaded 2-core machine). ``single_thread()``
sets OpenBLAS to one thread for the duration of a ``with`` block and restores the previous count;
it does nothing when the OpenBLAS library cannot be found. ``matmul_into`` leaves the threads to
products of at least ``THREADED_MACS`` multiply-adds (a whole chain of Mmads), where they pay, and does
not set them for products OpenBLAS keeps on one thread anyway (``SERIAL_MACS``). ``grid_into`` multiplies a grid
of the cores' products as one GEMM whose blocks keep the bits of their own products. ``transpose_into`` copies
float32 matrices transposed with OpenBLAS's ``somatcopy``.
"""

from __future__ import annotations

import ctypes
import glob
import itertools
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

THREADED_MACS = 1 << 23
SPLIT_MACS = 1 << 21
SERIAL_MACS = 1 << 16  # OpenBLAS multiplies a product of at most this many on one thread of its own accord
CALLED_TRANSPOSE = 1 << 14  # the fewest elements ``transpose_into`` moves with OpenBLAS

_lib = None
_funcs = None
_pool = None
_omat = None


def _find():
    global _lib, _funcs
    if _funcs is not None:
        return _funcs
    _funcs = (None, None)
    root = os.path.dirname(np.__file__)
    for path in glob.glob(os.path.join(os.path.dirname(root), "numpy.libs", "*openblas*")) + \
            glob.glob(os.path.join(root, ".libs", "*openblas*")):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in ("scipy_openblas_", "openblas_"):
            for suffix in ("64_", ""):
                setf, getf = (getattr(lib, f"{prefix}set_num_threads{suffix}", None),
                              getattr(lib, f"{prefix}get_num_threads{suffix}", None))
                if setf is not None and getf is not None:
                    getf.restype = ctypes.c_int
                    _lib, _funcs = lib, (setf, getf)
                    return _funcs
    return _funcs


class single_thread:
    """``with single_thread():`` runs the block with one OpenBLAS thread (a class, not a generator:
    the cube enters it once per ``Mmad``)."""

    __slots__ = ("old",)

    def __enter__(self):
        setf, getf = _find()
        self.old = None
        if setf is not None:
            old = getf()
            if old != 1:
                setf(1)
                self.old = old
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            _funcs[0](self.old)
        return False


def matmul_into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out = a @ b`` (batched over leading axes): on one BLAS thread unless each product is large (so
    that a product is computed alike, with the same rounding, however many are batched). A batch of
    smaller products worth ``SPLIT_MACS`` is split in two halves along its first axis, one computed on a second
    Python thread (NumPy releases the GIL in the product)."""
    macs = a.shape[-2] * a.shape[-1] * b.shape[-1]
    split = out.ndim >= 3 and out.shape[0] > 1 and a.shape[0] == b.shape[0] == out.shape[0] \
        and macs * (out.size // (out.shape[-2] * out.shape[-1])) >= SPLIT_MACS
    if macs >= THREADED_MACS or (macs <= SERIAL_MACS and not split):
        return np.matmul(a, b, out=out)
    with single_thread():
        if split:
            h = out.shape[0] // 2
            return _in_halves((a[:h], b[:h], out[:h]), (a[h:], b[h:], out[h:]), out)
        return np.matmul(a, b, out=out)


def grid_into(a: np.ndarray, b: np.ndarray, out: np.ndarray, unit: int, each: int) -> np.ndarray:
    """``out = a @ b`` (2-D) for a grid of products: each block of ``unit`` rows of ``a`` times each block of
    ``b``'s columns is a product of ``each`` multiply-adds, and gets the bits ``matmul_into`` gives it alone. BLAS
    rounds a block of one GEMM as that block's own GEMM on as many threads, so a grid of products too small for
    threads is multiplied on one BLAS thread, in two halves of whole blocks of rows on two Python threads when it
    is worth ``SPLIT_MACS``."""
    if each >= THREADED_MACS:
        return np.matmul(a, b, out=out)
    rows = a.shape[0]
    with single_thread():
        if rows >= 2 * unit and rows * a.shape[1] * b.shape[1] >= SPLIT_MACS:
            h = rows // unit // 2 * unit
            return _in_halves((a[:h], b, out[:h]), (a[h:], b, out[h:]), out)
        return np.matmul(a, b, out=out)


def _in_halves(first: tuple, second: tuple, out: np.ndarray) -> np.ndarray:
    """The products (a, b, out) ``first`` here and ``second`` on the helper thread at the same time (NumPy releases
    the GIL in a product); ``out``, which holds both."""
    other = _helper().submit(np.matmul, second[0], second[1], out=second[2])
    np.matmul(first[0], first[1], out=first[2])
    other.result()
    return out


_ROW_MAJOR, _TRANS = 101, 112  # CBLAS's enums


def _omatcopy():
    """OpenBLAS's ``cblas_somatcopy`` (an out-of-place float32 transpose, several times faster than NumPy's
    strided copy) with its integer type, or None when the library lacks it."""
    global _omat
    if _omat is None:
        _omat = (None, None)
        _find()
        for prefix in ("scipy_", ""):
            for suffix, int_t in (("64_", ctypes.c_int64), ("", ctypes.c_int)):
                f = getattr(_lib, f"{prefix}cblas_somatcopy{suffix}", None) if _lib is not None else None
                if f is not None:
                    f.argtypes = [ctypes.c_int, ctypes.c_int, int_t, int_t, ctypes.c_float, ctypes.c_void_p, int_t,
                                  ctypes.c_void_p, int_t]
                    f.restype = None
                    _omat = (f, int_t)
                    return _omat
    return _omat


def transpose_into(src: np.ndarray, dst: np.ndarray) -> bool:
    """``dst[...] = src`` for float32 stacks of matrices where ``src`` is the transpose of matrices whose rows are
    contiguous (its last two strides: 4 and a row's) and ``dst``'s rows are contiguous: one ``somatcopy`` per
    matrix, or one for the whole stack when the source matrices are consecutive blocks of rows of one matrix and
    the destinations its transpose's consecutive blocks of columns. False, with nothing copied, when OpenBLAS
    lacks it, the layouts are not so, or the stack is smaller than ``CALLED_TRANSPOSE`` elements (NumPy's own
    strided copy moves those in less time than the call takes)."""
    f, _ = _omatcopy()
    if f is None or not src.size or src.size < CALLED_TRANSPOSE or src.dtype != np.float32 \
            or dst.dtype != np.float32 or src.shape != dst.shape or src.ndim < 2 \
            or src.strides[-2] != 4 or src.strides[-1] % 4 or src.strides[-1] < 4 * src.shape[-2] \
            or dst.strides[-1] != 4 or dst.strides[-2] % 4 or dst.strides[-2] < 4 * dst.shape[-1]:
        return False
    cols, rows = src.shape[-2:]  # the source matrices are (rows, cols), rows of ``src.strides[-1]`` bytes
    lda, ldb = src.strides[-1] // 4, dst.strides[-2] // 4
    batch = src.shape[:-2]
    s0, d0 = src.ctypes.data, dst.ctypes.data
    count = src.size // (rows * cols)
    if count > 1 and ldb >= count * rows and _steps_by(batch, src.strides[:-2], rows * lda * 4) \
            and _steps_by(batch, dst.strides[:-2], rows * 4):
        f(_ROW_MAJOR, _TRANS, count * rows, cols, 1.0, s0, lda, d0, ldb)
        return True
    for i in itertools.product(*map(range, batch)):
        f(_ROW_MAJOR, _TRANS, rows, cols, 1.0, s0 + _offset(i, src.strides), lda, d0 + _offset(i, dst.strides), ldb)
    return True


def _steps_by(shape: tuple, strides: tuple, step: int) -> bool:
    """Whether the index tuples of ``shape``, in row-major order, lie ``step`` bytes apart with ``strides``."""
    for n, s in zip(reversed(shape), reversed(strides)):
        if n > 1:
            if s != step:
                return False
            step *= n
    return True


def _offset(index: tuple, strides: tuple) -> int:
    return sum(i * s for i, s in zip(index, strides))


def _helper() -> ThreadPoolExecutor:
    """The one helper thread of this process (a forked child, whose copy of the parent's has no thread,
    makes its own)."""
    global _pool
    if _pool is None or _pool[0] != os.getpid():
        _pool = (os.getpid(), ThreadPoolExecutor(1, thread_name_prefix="pyasc-blas"))
    return _pool[1]
