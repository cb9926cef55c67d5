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


def _gelu_of_inf_is_nan(dtypes: tuple[str, ...]) -> str:
    """Of ``dtypes``, those (as a pattern) in which this PyTorch build's GELU of +inf is NaN: its vectorised loops
    return NaN where the scalar loop and float64 return +inf, and which dtypes go through them depends on the CPU
    (float32 and bfloat16 on AVX2; float16 too on AVX-512)."""
    import torch

    nan = [d for d in dtypes if torch.isnan(torch.nn.functional.gelu(
        torch.full((8,), float("inf"), dtype=getattr(torch, d)))).all()]
    return "|".join(nan) or "none"


# op, dtype, mode, shape class, category, reason[, shapes and args]
KNOWN: list[tuple] = [
    # empty tensors
    # crash
    # missing
    # refused
    # wrong dtype
    # wrong shape
    # wrong value
    ("gelu", _gelu_of_inf_is_nan(("float32", "bfloat16", "float16")), "*", "nan", "wrong value",
     "GELU(+inf) is +inf here; PyTorch's vectorised loops return NaN for tensors of 5 or more elements, and +inf "
     "for fewer and in float64 (which dtypes take those loops depends on the CPU)"),
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
