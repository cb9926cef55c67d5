"""The single table of cases that fail today, keyed by op, dtype, mode and shape class.

A matching case is marked ``xfail(strict=True, raises=<category>)``: it must fail, and in that
category. When pyasc is fixed the case turns XPASS (a failure) and its entry must go. Fields are
``fnmatch`` patterns with ``|`` between alternatives; the first matching entry wins. The shape
class reads ``odd``, ``odd/bcast`` (operands of different shapes) or ``odd/0d`` (a 0-d operand).
An optional seventh field narrows an entry to cases whose ``"<shapes> <args>"`` matches it, for
failures that hang on one shape or value rather than on the class.
``--diff-observe`` runs every case unmarked (to see what fails now).
"""

from __future__ import annotations

from fnmatch import fnmatchcase

import pytest

from .harness import CATEGORIES, Case

# op, dtype, mode, shape class, category, reason[, shapes and args]
KNOWN: list[tuple] = [
    # empty tensors
    ("invert|and_op|or_op", "int32|int8", "*", "empty|empty/0d|empty/bcast", "wrong dtype",
     "gives bool where torch gives int32"),
    # crash
    ("and_op", "int32", "*", "odd/bcast", "crash", "KeyError on asctile.splat in bufferize"),
    ("and_op", "bool", "*", "odd/bcast", "crash", "KeyError on asctile.splat in bufferize", "9x9x5x5_1x9x5x5 "),
    ("eq", "bool", "*", "odd/bcast", "crash", "KeyError on asctile.splat in bufferize", "5x5x9x3_3 "),
    ("gt", "bool", "*", "odd/bcast", "crash", "KeyError on asctile.splat in bufferize", "33_1 "),
    ("inplace.isub_slice", "bfloat16", "eager", "one", "crash", "KeyError on asctile.splat in bufferize"),
    ("inplace.isub_slice", "float32", "eager", "one", "crash", "KeyError on asctile.splat in bufferize", "2x1_1 "),
    ("inplace.isub_slice",
     "float16", "eager", "one", "crash", "KeyError on asctile.splat in bufferize", "2x1x5_1x5 "),
    ("inplace.isub_slice", "int32", "eager", "one", "crash", "KeyError on asctile.splat in bufferize", "5x1x1_1x1 "),
    ("logical_and", "float16", "*", "nan/bcast|odd/bcast", "crash", "KeyError on asctile.splat in bufferize"),
    ("logical_and", "float32", "*", "large/bcast", "crash", "KeyError on asctile.splat in bufferize"),
    ("logical_and", "float32", "*", "nan/bcast", "crash", "KeyError on asctile.splat in bufferize", "5_1 "),
    ("logical_or",
     "*", "*", "large/0d|nan/0d|nan/bcast|odd/0d|odd/bcast|prime/0d", "crash",
     "KeyError on asctile.splat in bufferize"),
    ("logical_or", "bfloat16", "*", "one/bcast", "crash", "KeyError on asctile.splat in bufferize"),
    ("logical_xor", "float16", "*", "prime/bcast", "crash", "KeyError on asctile.splat in bufferize", "5_1 "),
    ("lt",
     "bool", "*", "large/0d|odd/bcast|one/bcast|prime/bcast", "crash",
     "KeyError on asctile.splat in bufferize"),
    ("ne", "bool", "*", "odd/bcast|one/0d", "crash", "KeyError on asctile.splat in bufferize"),
    ("or_op",
     "*", "*", "large|large/bcast|odd/bcast|[!e]*/0d", "crash", "KeyError on asctile.splat in bufferize"),
    ("where", "int32", "*", "large/bcast|prime/0d", "crash", "KeyError on asctile.splat in bufferize"),
    ("where", "bfloat16", "*", "nan/0d", "crash", "KeyError on asctile.splat in bufferize"),
    ("where_mixed", "bfloat16", "*", "prime/bcast", "crash", "KeyError on asctile.splat in bufferize"),
    ("where_mixed", "bfloat16", "*", "odd/bcast", "crash", "KeyError on asctile.splat in bufferize", "1x1_25x27 "),
    ("add_mixed_float32|mul_mixed_int32|add_scalar_int|add_scalar_float",
     "bool", "*", "[!e]*", "crash", "bool operand: asctensor.cast has no i1"),
    ("logical_not|invert|logical_and|logical_or|logical_xor|and_op|or_op",
     "int8", "*", "[!e]*", "crash", "int8 constant: asctensor.full has no i8"),
    ("inplace.iadd_view|inplace.isub_slice|inplace.imul_transpose|inplace.add_|inplace.mul_|inplace.copy_",
     "bool|int8", "jit", "large|odd|one|prime", "refused",
     "jit: an in-place update of a bool or int8 view is refused (they move as float16)"),
    # missing
    # refused
    ("split_sections", "*", "jit", "[!e]*", "refused", "jit: a split with an empty section", "*split=[[]0,*"),
    ("abs", "int32", "*", "*", "refused", "abs refuses int32"),
    ("add_op", "bool|int8", "*", "*", "refused", "add refuses bool/int8"),
    ("add_scalar_int", "int8", "*", "*", "refused", "add refuses int8"),
    ("conv2d_nobias", "int32", "*", "empty|large|one|prime", "refused", "conv2d refuses int32"),
    ("conv2d_nobias",
     "int32", "*", "odd", "refused",
     "conv2d refuses int32", "2x4x21x11_5x4x3x3 stride=2,padding=0,dilation=1,groups=1"),
    ("conv2d|conv2d_const", "int32", "*", "*", "refused", "conv2d refuses int32"),
    ("F.conv2d", "int32", "*", "*", "refused", "conv2d refuses int32"),
    ("eq", "int8", "*", "*", "refused", "eq refuses int8"),
    ("erf", "int32", "*", "*", "refused", "erf refuses int32"),
    ("exp", "int32", "*", "*", "refused", "exp refuses int32"),
    ("ge", "int8", "*", "*", "refused", "ge refuses int8"),
    ("gt", "int8", "*", "*", "refused", "gt refuses int8"),
    ("isfinite", "int32", "*", "*", "refused", "isfinite refuses int32"),
    ("isinf", "int32", "*", "*", "refused", "isinf refuses int32"),
    ("isnan", "int32", "*", "*", "refused", "isnan refuses int32"),
    ("topk", "int32", "jit", "[!e]*", "refused", "jit topk refuses integers"),
    ("topk", "bfloat16|float16", "jit", "large", "refused", "jit topk supports k <= 64 only"),
    ("index_tensor", "*", "jit", "empty", "refused", "jit: getitem has no lowering", "*_[1-9]* *"),
    ("index_tensor|index_bool", "*", "jit", "[!e]*", "refused", "jit: getitem has no lowering"),
    ("inplace.setitem_scalar", "*", "jit", "large|odd|one|prime", "refused", "jit: setitem has no lowering"),
    ("inplace.setitem_scalar", "bfloat16", "jit", "[!e]*", "refused", "jit: setitem has no lowering"),
    ("inplace.setitem_tensor", "*", "jit", "[!e]*", "refused", "jit: setitem has no lowering"),
    ("le", "int8", "*", "*", "refused", "le refuses int8"),
    ("log", "int32", "*", "*", "refused", "log refuses int32"),
    ("lt", "int8", "*", "*", "refused", "lt refuses int8"),
    ("ne", "int8", "*", "*", "refused", "ne refuses int8"),
    ("pow|pow_scalar_int", "int32", "*", "*", "refused", "pow refuses int32"),
    ("rms_norm", "int32", "*", "*", "refused", "reductions refuse integer and bool inputs"),
    ("rsqrt", "int32", "*", "*", "refused", "rsqrt refuses int32"),
    ("sigmoid", "int32", "*", "*", "refused", "sigmoid refuses int32"),
    ("sqrt", "int32", "*", "*", "refused", "sqrt refuses int32"),
    ("tanh", "int32", "*", "*", "refused", "tanh refuses int32"),
    ("sin|cos|tan", "int32", "*", "*", "refused", "sin, cos and tan refuse int32"),
    ("where", "bool|int8", "*", "*", "refused", "where refuses bool/int8"),
    # wrong dtype
    ("addmm_scaled", "int32", "eager", "*", "wrong dtype", "gives float32 where torch gives int32 (float alpha, beta)"),
    ("and_op", "*", "*", "one|prime", "wrong dtype", "gives bool where torch gives int32"),
    ("and_op", "int32", "*", "*", "wrong dtype", "gives bool where torch gives int32"),
    ("invert", "int32", "*", "large|odd|one|prime", "wrong dtype", "gives bool where torch gives int32"),
    ("or_op", "int32", "*", "odd|one|prime|prime/bcast", "wrong dtype", "gives bool where torch gives int32"),
    ("add_mixed_float32|where_mixed",
     "*", "*", "prime/0d", "wrong dtype", "gives float32 where torch gives bfloat16"),
    ("add_mixed_float32", "bfloat16", "*", "empty/0d", "wrong dtype", "gives float32 where torch gives bfloat16"),
    ("mul_mixed_int32", "int8", "*", "odd/0d|one/0d", "wrong dtype", "gives int32 where torch gives int8"),
    # wrong shape
    # wrong value
]


def _match(pattern: str, value: str) -> bool:
    return any(fnmatchcase(value, p) for p in pattern.split("|"))


def matches(entry, op: str, dtype: str, mode: str, cls: str, detail: str = "") -> bool:
    if len(entry) > 6 and not _match(entry[6], detail):
        return False
    return all(_match(p, v) for p, v in zip(entry[:4], (op, dtype, mode, cls)))


def lookup(case: Case):
    """The first table entry matching ``case`` (or None)."""
    detail = f"{case.shapes_text} {case.args_text}"
    for entry in KNOWN:
        if matches(entry, case.op, case.dtype, case.mode, case.key_cls, detail):
            return entry
    return None


def mark(case: Case):
    entry = lookup(case)
    if entry is None:
        return ()
    category, reason = entry[4], entry[5]
    return (pytest.mark.xfail(strict=True, raises=CATEGORIES[category], reason=f"{category}: {reason}"),)
