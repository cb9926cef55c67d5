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
    ("batch_norm|batch_norm_2d|batch_norm_const", "*", "*", "empty", "wrong value",
     "zero channels: torch raises, pyasc computes an empty result", "*_0_0_0_0 "),
    ("F.linear|linear|addmm", "bfloat16", "jit", "empty", "crash",
     "simulator hazard (race) in the kernel: a bf16 bias broadcast (product with K = 0)"),
    ("linear_gelu", "bfloat16|float32", "jit", "empty", "crash",
     "simulator hazard (race) in the kernel: a bias broadcast (product with K = 0)"),
    ("autocast_bf16.addmm", "float32", "jit", "empty", "crash",
     "simulator hazard (race) in the kernel: a bf16 bias broadcast (product with K = 0)"),
    # crash
    ("pow", "bfloat16", "*", "prime/bcast", "crash", "simulator hazard (race) in the kernel"),
    # missing
    # refused
    ("topk", "int32", "jit", "large|odd|prime", "refused", "jit topk refuses integers", "* k=[1-9]*"),
    ("index_bool", "*", "jit", "[!e]*", "refused",
     "jit: x[mask] with a traced mask has a shape that depends on the mask's values (shapes are fixed when compiled)"),
    # wrong dtype
    # wrong shape
    # wrong value
    ("erf", "*", "*", "nan", "wrong value", "erf(+-inf) gives NaN"),
    ("argmax",
     "bfloat16", "*", "nan", "wrong value", "index of NaN/inf differs from torch's", "13x13 dim=-2,keepdim=False"),
    ("argmax",
     "float16", "*", "nan", "wrong value", "index of NaN/inf differs from torch's", "17x13x3x3 dim=1,keepdim=False"),
    ("argmax",
     "float32", "*", "nan", "wrong value", "index of NaN/inf differs from torch's", "29x17 dim=0,keepdim=True"),
    ("argmin",
     "bfloat16", "*", "nan", "wrong value", "index of NaN/inf differs from torch's", "29x3 dim=-2,keepdim=True"),
    ("max_dim", "float16|float32", "*", "nan", "wrong value", "index of NaN/inf differs from torch's"),
    ("max_dim",
     "bfloat16", "*", "nan", "wrong value", "index of NaN/inf differs from torch's", "9x17x9 dim=-2,keepdim=False"),
    ("min_dim", "*", "*", "nan", "wrong value", "index of NaN/inf differs from torch's"),
    ("pow",
     "*", "*", "nan|nan/bcast", "wrong value",
     "pow with NaN/inf operands gives NaN (pow(nan, 0) and pow(inf, 0) must be 1)"),
    ("pow_scalar_float",
     "float16", "*", "nan", "wrong value",
     "pow with NaN/inf operands gives NaN (pow(nan, 0) and pow(inf, 0) must be 1)"),
    ("batch_norm",
     "bfloat16|float16", "eager", "large|odd|prime", "wrong value",
     "statistics folded in the input's low-precision dtype: several roundings"),
    ("batch_norm_2d",
     "bfloat16|float16", "*", "large", "wrong value",
     "statistics folded in the input's low-precision dtype: several roundings"),
    ("batch_norm_2d",
     "bfloat16", "*", "prime", "wrong value",
     "statistics folded in the input's low-precision dtype: several roundings", "13x29_29_29_29_29 "),
    ("batch_norm_2d",
     "bfloat16", "*", "odd", "wrong value",
     "statistics folded in the input's low-precision dtype: several roundings", "27x25_25_25_25_25 "),
    ("batch_norm_2d",
     "float16", "*", "odd", "wrong value",
     "statistics folded in the input's low-precision dtype: several roundings", "9x25_25_25_25_25 "),
    ("batch_norm_const",
     "bfloat16|float16", "*", "large|odd|prime", "wrong value",
     "statistics folded in the input's low-precision dtype: several roundings"),
    ("batch_norm_const",
     "bfloat16", "*", "one", "wrong value",
     "statistics folded in the input's low-precision dtype: several roundings", "1x31x23x1_31_31_31_31 "),
    ("autocast.index_bool", "*", "jit", "*", "refused",
     "jit: x[mask] with a traced mask has a shape that depends on the mask's values (shapes are fixed when compiled)"),
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
