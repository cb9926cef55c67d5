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
    # crash
    ("autocast_f16.sum", "*", "*", "empty", "crash", "IndexError in lowering"),
    ("view", "*", "jit", "empty", "crash", "IndexError in lowering"),
    ("and_op", "*", "*", "empty|empty/0d|empty/bcast", "crash", "KeyError on asctile.splat in bufferize"),
    ("and_op", "int32", "*", "odd/bcast", "crash", "KeyError on asctile.splat in bufferize"),
    ("and_op", "bool", "*", "odd/bcast", "crash", "KeyError on asctile.splat in bufferize", "9x9x5x5_1x9x5x5 "),
    ("eq", "bool", "*", "odd/bcast", "crash", "KeyError on asctile.splat in bufferize", "5x5x9x3_3 "),
    ("ge", "bool", "*", "empty/0d", "crash", "KeyError on asctile.splat in bufferize"),
    ("gt", "bool", "*", "odd/bcast", "crash", "KeyError on asctile.splat in bufferize", "33_1 "),
    ("inplace.isub_slice", "*", "eager", "empty", "crash", "KeyError on asctile.splat in bufferize"),
    ("inplace.isub_slice", "bfloat16|float32", "*", "empty", "crash", "KeyError on asctile.splat in bufferize"),
    ("inplace.isub_slice", "bfloat16", "eager", "one", "crash", "KeyError on asctile.splat in bufferize"),
    ("inplace.isub_slice", "float32", "eager", "one", "crash", "KeyError on asctile.splat in bufferize", "2x1_1 "),
    ("inplace.isub_slice",
     "float16", "eager", "one", "crash", "KeyError on asctile.splat in bufferize", "2x1x5_1x5 "),
    ("inplace.isub_slice", "int32", "eager", "one", "crash", "KeyError on asctile.splat in bufferize", "5x1x1_1x1 "),
    ("leaky_relu|invert|clip|rsub_scalar|eq_scalar|inplace.iadd_alias",
     "*", "*", "empty", "crash", "KeyError on asctile.splat in bufferize"),
    ("logical_and", "float16", "*", "nan/bcast|odd/bcast", "crash", "KeyError on asctile.splat in bufferize"),
    ("logical_and", "float32", "*", "large/bcast", "crash", "KeyError on asctile.splat in bufferize"),
    ("logical_and", "float32", "*", "nan/bcast", "crash", "KeyError on asctile.splat in bufferize", "5_1 "),
    ("logical_or",
     "*", "*", "empty|empty/0d|empty/bcast|large/0d|nan/0d|nan/bcast|odd/0d|odd/bcast|prime/0d", "crash",
     "KeyError on asctile.splat in bufferize"),
    ("logical_or", "bfloat16", "*", "one/bcast", "crash", "KeyError on asctile.splat in bufferize"),
    ("logical_xor",
     "bool|float16|float32|int32|int8", "*", "empty|empty/0d|empty/bcast", "crash",
     "KeyError on asctile.splat in bufferize"),
    ("logical_xor", "*", "*", "empty", "crash", "KeyError on asctile.splat in bufferize"),
    ("logical_xor", "float16", "*", "prime/bcast", "crash", "KeyError on asctile.splat in bufferize", "5_1 "),
    ("lt",
     "bool", "*", "empty/bcast|large/0d|odd/bcast|one/bcast|prime/bcast", "crash",
     "KeyError on asctile.splat in bufferize"),
    ("ne", "bool", "*", "odd/bcast|one/0d", "crash", "KeyError on asctile.splat in bufferize"),
    ("or_op",
     "*", "*", "empty/bcast|large|large/bcast|odd/bcast|*/0d", "crash", "KeyError on asctile.splat in bufferize"),
    ("to_bool|split_sections|zeros_like|full_like",
     "*", "jit", "empty", "crash", "KeyError on asctile.splat in bufferize"),
    ("where", "int32", "*", "large/bcast|prime/0d", "crash", "KeyError on asctile.splat in bufferize"),
    ("where", "bfloat16", "*", "nan/0d", "crash", "KeyError on asctile.splat in bufferize"),
    ("where_mixed", "bfloat16", "*", "prime/bcast", "crash", "KeyError on asctile.splat in bufferize"),
    ("where_mixed", "bfloat16", "*", "odd/bcast", "crash", "KeyError on asctile.splat in bufferize", "1x1_25x27 "),
    ("argmin", "bfloat16", "eager", "empty", "crash", "ZeroDivisionError in lowering"),
    ("matmul_relu", "float32", "jit", "empty", "refused", "jit refuses empty results", "0x5_5x17 "),
    ("matmul_const", "float32", "jit", "empty", "refused", "jit refuses empty results", "0x2_2x7 "),
    ("rms_norm|bmm|addmm_scaled",
     "bfloat16|float16|float32", "*", "empty", "crash", "ZeroDivisionError in lowering"),
    ("mean|log_softmax|layer_norm|autocast_f16.matmul|autocast_f16.bmm|autocast_f16.mean"
     "|autocast_f16.softmax|autocast_bf16.matmul|autocast_bf16.bmm|autocast_bf16.sum|autocast_bf16.mean"
     "|autocast_f16.addmm",
     "*", "*", "empty", "crash", "ZeroDivisionError in lowering"),
    ("add_mixed_float32|mul_mixed_int32|add_scalar_int|add_scalar_float",
     "bool", "*", "*", "crash", "bool operand: asctensor.cast has no i1"),
    ("add_op", "float32|int32", "*", "empty/bcast", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("add_scalar_int",
     "bfloat16|bool|float16|float32|int32", "*", "empty", "crash",
     "empty tensor: 'global tensor size must be positive'"),
    ("addmm|conv2d_const",
     "float16|float32", "*", "empty", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("add|mul|le|ge", "*", "*", "empty|empty/0d", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("cat", "int8", "*", "empty", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("clamp_tensor|sub|div|minimum|add_mixed_float32|mul_mixed_int32",
     "*", "*", "empty|empty/0d|empty/bcast", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("eq", "float16", "*", "empty", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("eq|ne", "*", "*", "empty/0d|empty/bcast", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("exp|log|sqrt|rsqrt|abs|sin|cos|tan|tanh|erf|sigmoid|isnan|isinf|isfinite|sum|prod|amax|min_dim|pow_scalar_int",
     "bfloat16|float16|float32", "*", "empty", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("ge", "int32", "*", "empty/bcast", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("inplace.iadd_view|inplace.idiv_view|jit_nested|batch_norm",
     "*", "eager", "empty", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("le", "float32", "*", "empty/bcast", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("logical_and", "*", "*", "empty|*/0d", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("lt", "float32|int32", "*", "empty", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("lt|where", "*", "*", "empty/bcast", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("maximum|gt|where_mixed",
     "*", "*", "empty|empty/bcast", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("ne",
     "bfloat16|bool|int32", "*", "empty|large/0d", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("neg|relu|gelu|gelu_tanh|logical_not|clamp|clamp_min|add_op|where_scalar|mul_scalar|truediv_scalar"
     "|rtruediv_scalar|norm2|softmax|inplace.imul_transpose|autocast_f16.log_softmax"
     "|autocast_f16.exp|autocast_f16.add|autocast_bf16.softmax|autocast_bf16.log_softmax|autocast_bf16.exp"
     "|autocast_bf16.add|add_scalar_float|pow_scalar_float|rpow_scalar|batch_norm_2d|batch_norm_const"
     "|autocast_bf16.addmm",
     "*", "*", "empty", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("pow",
     "bfloat16|float16|float32", "*", "empty/bcast|odd/bcast", "crash",
     "empty tensor: 'global tensor size must be positive'"),
    ("split", "float16|int32|int8", "jit", "empty", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("to_bfloat16",
     "float16|float32|int32|int8", "*", "empty", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("to_float16",
     "bfloat16|float32|int32|int8", "*", "empty", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("to_float32|float_method",
     "bfloat16|float16|int32|int8", "*", "empty", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("to_float32|to_float16|to_bfloat16|to_int32|to_int8|float_method|reshape|transpose|permute|squeeze"
     "|unsqueeze|flatten|t|mT|contiguous|chunk|ones_like|empty_like|rand_like|randn_like|dropout",
     "*", "jit", "empty", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("to_int32",
     "bfloat16|float16|float32|int8", "*", "empty", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("to_int8",
     "bfloat16|float16|float32|int32", "*", "empty", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("topk", "bfloat16|float32", "*", "empty", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("logical_and", "int32|int8", "*", "empty/bcast", "crash", "int8 constant: asctensor.full has no i8"),
    ("logical_not|invert|logical_and|logical_or|logical_xor|and_op|or_op",
     "int8", "*", "*", "crash", "int8 constant: asctensor.full has no i8"),
    ("zeros_like|ones_like|full_like|empty_like",
     "bool|int8", "jit", "*", "crash", "int8 constant: asctensor.full has no i8"),
    ("conv2d|conv2d_nobias|conv2d_const|F.conv2d|autocast_f16.conv2d|autocast_bf16.conv2d",
     "bfloat16|float16|float32", "*", "empty", "crash", "empty tensor: IndexError in tile-movement"),
    ("batch_norm", "*", "jit", "empty", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("pow", "bfloat16", "*", "prime/bcast", "crash", "simulator hazard (race) in the kernel"),
    ("inplace.iadd_view|inplace.isub_slice|inplace.imul_transpose|inplace.add_|inplace.mul_|inplace.copy_",
     "bool|int8", "jit", "large|odd|one|prime", "refused",
     "jit: an in-place update of a bool or int8 view is refused (they move as float16)"),
    ("square|reciprocal|silu|softplus|hardswish|log1p|trunc|logsumexp|all|avg_pool2d|adaptive_avg_pool2d"
     "|einsum:ij->ji|einsum:ijk->j|F.softmax|F.log_softmax",
     "*", "jit", "empty", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("F.gelu|F.layer_norm", "*", "eager", "empty", "crash", "empty tensor: 'global tensor size must be positive'"),
    ("expm1|ceil|cumprod|flip|floordiv|index_select|F.relu",
     "*", "jit", "empty", "crash", "KeyError on asctile.splat in bufferize"),
    ("outer|einsum:i,j->ij|einsum:bhqd,bhkd->bhqk", "*", "jit", "empty", "crash", "IndexError in lowering"),
    ("F.cross_entropy", "*", "jit", "empty", "crash", "ZeroDivisionError in lowering"),
    ("F.linear", "*", "eager", "empty", "crash", "ZeroDivisionError in lowering"),
    # missing
    # refused
    ("abs", "int32", "*", "*", "refused", "abs refuses int32"),
    ("add_op", "bool|int8", "*", "*", "refused", "add refuses bool/int8"),
    ("add_scalar_int", "int8", "*", "*", "refused", "add refuses int8"),
    ("addmm|addmm_scaled", "int32", "*", "*", "refused", "addmm refuses int32"),
    ("bmm", "int32", "*", "*", "refused", "bmm refuses int32"),
    ("conv2d_nobias", "int32", "*", "empty|large|one|prime", "refused", "conv2d refuses int32"),
    ("conv2d_nobias",
     "int32", "*", "odd", "refused",
     "conv2d refuses int32", "2x4x21x11_5x4x3x3 stride=2,padding=0,dilation=1,groups=1"),
    ("conv2d|conv2d_const", "int32", "*", "*", "refused", "conv2d refuses int32"),
    ("F.conv2d", "int32", "*", "*", "refused", "conv2d refuses int32"),
    ("mm|einsum:ij,jk->ik|einsum:bij,bjk->bik|F.linear|linear_const", "int32", "*", "*", "refused",
     "matmul refuses int32"),
    ("einsum:ii->|einsum:ijk->j", "int32", "*", "*", "refused", "reductions refuse integer and bool inputs"),
    ("gather|cumsum", "*", "jit", "empty", "refused", "jit refuses empty results"),
    ("eq", "int8", "*", "*", "refused", "eq refuses int8"),
    ("erf", "int32", "*", "*", "refused", "erf refuses int32"),
    ("exp", "int32", "*", "*", "refused", "exp refuses int32"),
    ("ge", "int8", "*", "*", "refused", "ge refuses int8"),
    ("gt", "int8", "*", "*", "refused", "gt refuses int8"),
    ("isfinite", "int32", "*", "*", "refused", "isfinite refuses int32"),
    ("isinf", "int32", "*", "*", "refused", "isinf refuses int32"),
    ("isnan", "int32", "*", "*", "refused", "isnan refuses int32"),
    ("cat", "bfloat16", "jit", "empty", "refused", "jit refuses empty results"),
    ("getitem", "bool|float16|float32|int8", "jit", "empty", "refused", "jit refuses empty results"),
    ("getitem", "float16", "jit", "one", "refused", "jit refuses empty results", "1x1 index=1:"),
    ("getitem", "bool", "jit", "one", "refused", "jit refuses empty results", "1x1x1 index=1:"),
    ("getitem", "float32", "jit", "one", "refused", "jit refuses empty results", "1x1x5x1 index=1:"),
    ("inplace.isub_slice", "float16|int32", "jit", "empty", "refused", "jit refuses empty results"),
    ("inplace.isub_slice", "float32", "jit", "one", "refused", "jit refuses empty results", "2x1_1 "),
    ("inplace.isub_slice", "float16", "jit", "one", "refused", "jit refuses empty results", "2x1x5_1x5 "),
    ("inplace.isub_slice", "int32", "jit", "one", "refused", "jit refuses empty results", "5x1x1_1x1 "),
    ("inplace.mul_", "float16|float32|int32", "jit", "empty", "refused", "jit refuses empty results"),
    ("split", "bfloat16|bool|float32", "jit", "empty", "refused", "jit refuses empty results"),
    ("split_sections", "bfloat16|bool|float16|int32", "jit", "one", "refused", "jit refuses empty results"),
    ("split_sections", "int32", "jit", "prime", "refused", "jit refuses empty results"),
    ("split_sections",
     "bfloat16", "jit", "prime", "refused", "jit refuses empty results", "13 split=[[]0, 13[]],dim=0"),
    ("split_sections",
     "float16", "jit", "prime", "refused", "jit refuses empty results", "13x17x3 split=[[]3, 0[]],dim=2"),
    ("split_sections", "int8", "jit", "one", "refused", "jit refuses empty results", "1x13 split=[[]0, 1[]],dim=0"),
    ("split_sections", "float32", "jit", "one", "refused", "jit refuses empty results", "1x5 split=[[]5, 0[]],dim=1"),
    ("split_sections",
     "int32", "jit", "odd", "refused", "jit refuses empty results", "25x33 split=[[]0, 25[]],dim=0"),
    ("split_sections",
     "float32", "jit", "prime", "refused", "jit refuses empty results", "3x2x17 split=[[]0, 3[]],dim=0"),
    ("split_sections", "bool", "jit", "prime", "refused", "jit refuses empty results", "5 split=[[]0, 5[]],dim=0"),
    ("stack|inplace.iadd_view|inplace.idiv_view|inplace.add_|inplace.copy_",
     "*", "jit", "empty", "refused", "jit refuses empty results"),
    ("topk", "float16", "jit", "empty", "refused", "jit refuses empty results"),
    ("topk", "float16", "jit", "one", "refused", "jit refuses empty results", "11x1 k=0,dim=1,largest=True"),
    ("topk", "bfloat16", "jit", "prime", "refused", "jit refuses empty results", "11x3 k=0,dim=-1,largest=True"),
    ("topk", "float32", "jit", "one", "refused", "jit refuses empty results", "7x1 k=0,dim=1,largest=True"),
    ("topk|inplace.isub_slice", "bfloat16", "jit", "one", "refused", "jit refuses empty results"),
    ("topk", "int32", "jit", "*", "refused", "jit topk refuses integers"),
    ("topk", "bfloat16|float16", "jit", "large", "refused", "jit topk supports k <= 64 only"),
    ("index_tensor|index_bool", "*", "jit", "*", "refused", "jit: getitem has no lowering"),
    ("inplace.setitem_scalar", "*", "jit", "large|odd|one|prime", "refused", "jit: setitem has no lowering"),
    ("inplace.setitem_scalar", "bfloat16", "jit", "*", "refused", "jit: setitem has no lowering"),
    ("inplace.setitem_tensor", "*", "jit", "*", "refused", "jit: setitem has no lowering"),
    ("le", "int8", "*", "*", "refused", "le refuses int8"),
    ("linear|linear_nobias", "int32", "*", "*", "refused", "linear refuses int32"),
    ("log", "int32", "*", "*", "refused", "log refuses int32"),
    ("lt", "int8", "*", "*", "refused", "lt refuses int8"),
    ("matmul|matmul_3d|matmul_sliced|matmul_relu|matmul_ones|matmul_const|matmul_4d|matmul_bcast|matmul_vec",
     "int32", "*", "*", "refused", "matmul refuses int32"),
    ("matmul_4d", "*", "jit", "empty", "refused", "jit refuses empty results"),
    ("ne", "int8", "*", "*", "refused", "ne refuses int8"),
    ("pow|pow_scalar_int", "int32", "*", "*", "refused", "pow refuses int32"),
    ("amax|amin|max|min|max_dim|min_dim|argmax|argmin|sum|prod",
     "int32", "jit", "*", "refused", "jit: int32 reductions through float32 are not exact"),
    ("prod", "bool|int8", "jit", "*", "refused", "jit: integer products through float32 are not exact"),
    ("amax|max_dim", "bool|int32", "*", "empty", "refused", "reductions refuse integer and bool inputs"),
    ("amin", "bool", "*", "empty", "refused", "reductions refuse integer and bool inputs"),
    ("argmax|argmin", "int8", "*", "empty", "refused", "reductions refuse integer and bool inputs"),
    ("rms_norm", "int32", "*", "*", "refused", "reductions refuse integer and bool inputs"),
    ("sum|prod", "bool|int32|int8", "*", "empty", "refused", "reductions refuse integer and bool inputs"),
    ("rsqrt", "int32", "*", "*", "refused", "rsqrt refuses int32"),
    ("sigmoid", "int32", "*", "*", "refused", "sigmoid refuses int32"),
    ("sqrt", "int32", "*", "*", "refused", "sqrt refuses int32"),
    ("tanh", "int32", "*", "*", "refused", "tanh refuses int32"),
    ("sin|cos|tan", "int32", "*", "*", "refused", "sin, cos and tan refuse int32"),
    ("where", "bool|int8", "*", "*", "refused", "where refuses bool/int8"),
    # wrong dtype
    ("and_op", "*", "*", "one|prime", "wrong dtype", "gives bool where torch gives int32"),
    ("and_op", "int32", "*", "*", "wrong dtype", "gives bool where torch gives int32"),
    ("invert", "int32", "*", "large|odd|one|prime", "wrong dtype", "gives bool where torch gives int32"),
    ("or_op", "int32", "*", "odd|one|prime|prime/bcast", "wrong dtype", "gives bool where torch gives int32"),
    ("add_mixed_float32|where_mixed",
     "*", "*", "prime/0d", "wrong dtype", "gives float32 where torch gives bfloat16"),
    ("mul_mixed_int32", "int8", "*", "odd/0d|one/0d", "wrong dtype", "gives int32 where torch gives int8"),
    # wrong shape
    ("chunk", "bfloat16|bool|float32|int8", "eager", "empty", "wrong shape", "1 pieces where torch gives 3"),
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
