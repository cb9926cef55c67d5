"""How an op of the tensor API is defined, and how a call of it runs.

Every op (elementwise arithmetic, comparisons, reductions, matrix products, views, composites and
custom ops) is one :class:`OpDef`, written once in the module of its kind (``ops_elementwise``,
``ops_compare``, ``ops_reduce``, ``ops_linalg``, ``views``, ``composite``; ``custom`` makes them
at run time) and collected into the op table by ``ops.py``. The OpDef holds all there is to the op:

* its **signature**. An elementwise op takes ``arity`` operands (tensors or Python numbers) and
  the attributes ``attrs`` (name -> default; also positional after the operands). Any other op
  gives a ``signature`` function with its Python parameters that returns ``(operands, attrs)``.
* its **dtype and shape rule**. An elementwise op has its supported compute ``dtypes`` and a
  dtype ``rule`` giving the compute and result dtypes (PyTorch's promotion by default); shapes
  broadcast as in NumPy. Any other op gives ``infer(operands, attrs) -> Types``.
* its **IR builder** ``build(trace, values, types, attrs)``: the ``asctensor``-level IR of one call
  (an Operation, a value, or a tuple of values). The operands of an elementwise op arrive cast to
  the compute dtype and broadcast, Python numbers as splats.
* its **NumPy reference** ``reference(*arrays, **attrs)``: the oracle of the tests, the eager
  ``"reference"`` backend and the host path of calls without a device lowering.
* its **eager path** ``eager``: ``DEVICE`` (a compiled one-op program from the one eager cache in
  ``eager.py``), ``HOST`` (the reference on the host: views share storage as in PyTorch) or
  ``DEVICE_OR_HOST`` (compiled when the compiler lowers the call, else on the host); or a
  function of the operands and attributes giving one of them.
* optionally its **gradient** ``vjp(ctx, grad)``: one gradient per operand (None where there is
  none), written with tensor ops (``autograd.tape.VJPContext``); autograd applies it eagerly and
  inside ``pyasc.jit`` alike. A composite differentiates through the ops it decomposes into.
* optionally its **decomposition** ``decompose``, called first with the call's arguments: a
  composite is nothing else; an op may decompose some calls only (a cast to bool is ``x != 0``)
  and return ``NotImplemented`` for the others.

Calling an OpDef applies the op: inside ``pyasc.jit`` it records IR into the trace its operands
belong to, otherwise it runs eagerly.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from xdsl.ir import Operation

from . import amp, eager
from .autograd import tape, view_update
from . import dtypes as dt
from .args import operand
from .dtypes import DType
from .errors import PyascError, describe, raise_host_only, user_location
from .functionalize import record_views
from .formats import Format
from .tensor import Tensor
from .tracing import broadcast_shapes_or_raise, current_trace

# how an op runs on concrete tensors
DEVICE = "device"
HOST = "host"
DEVICE_OR_HOST = "device_or_host"

# ops whose ``dtype=`` keyword casts the input first (PyTorch's reductions and softmaxes)
CAST_FIRST = frozenset({"sum", "mean", "prod", "softmax", "log_softmax", "logsumexp", "cumprod", "nansum"})
ROUNDING_MODES = (None, "trunc", "floor")

# the kinds of op (what the op table and the documentation group them by)
ELEMENTWISE, COMPARE, REDUCE, MATRIX, VIEW, COMPOSITE, CUSTOM = (
    "elementwise", "compare", "reduce", "matrix", "view", "composite", "custom")


class Types(NamedTuple):
    """What the dtype and shape rule of an op give for one call: the dtype its operands are
    rounded to for the reference (None: they are used as they are) and each result's dtype and
    shape."""

    compute: DType | None
    results: tuple[tuple[DType, tuple[int, ...]], ...]


def promote_rule(operands, attrs) -> tuple[DType, DType]:
    """PyTorch promotion over tensor dtypes and Python scalars; compute and result agree."""
    d = dt.result_type(*operands)
    return d, d


@dataclass(frozen=True, eq=False, repr=False)
class OpDef:
    """One op of the tensor API; call it like a function (see the module docstring)."""

    name: str
    build: Callable | None = None           # (trace, values, types, attrs) -> Operation | value | tuple
    reference: Callable | None = None       # (*arrays, **attrs) -> array | tuple of arrays
    # the signature and the dtype rule of an elementwise op ...
    arity: int = 1
    attrs: Mapping = field(default_factory=dict)
    dtypes: tuple[DType, ...] = dt.ALL_DTYPES
    rule: Callable = promote_rule           # (operand dtypes or Python numbers, attrs) -> (compute, result)
    check_attrs: Callable | None = None     # validates and normalises the attributes in place
    raw_bool: bool = False                  # bool operands reach the builder uncast (it converts them)
    # ... or those of any other op
    signature: Callable | None = None       # (*args, **kwargs) -> (operands, attrs)
    infer: Callable | None = None           # (operands, attrs) -> Types, or None when the builder decides
    decompose: Callable | None = None       # (*args, **kwargs) -> the result, or NotImplemented
    eager: str | Callable = DEVICE
    pack: Callable = tuple                  # how several results are returned
    kind: str = ELEMENTWISE
    method: bool = True                     # a method of Tensor too (``x.exp()``)
    function: bool = True                   # a function of the pyasc package (``pyasc.exp``)
    doc: str = ""
    # its gradient: (ctx, grad of the result(s)) -> one gradient per operand (None: none); see
    # ``autograd.tape.VJPContext``. An op without one cannot be differentiated.
    vjp: Callable | None = None

    def __post_init__(self) -> None:
        # an op reads like the function it is: its name and documentation
        object.__setattr__(self, "__name__", self.name)
        object.__setattr__(self, "__qualname__", self.name)
        object.__setattr__(self, "__doc__", self.doc or (self.decompose.__doc__ if self.decompose else None))

    def __repr__(self) -> str:
        return f"<pyasc op {self.name}>"

    @property
    def elementwise(self) -> bool:
        """The op has the elementwise signature and rules: its operands promote and broadcast."""
        return self.signature is None

    @property
    def __signature__(self) -> inspect.Signature:  # noqa: PLW3201 - for help() and IDEs
        fn = self.signature or (self.decompose if self.build is None and self.reference is None else None)
        if fn is not None:
            return inspect.signature(fn)
        P = inspect.Parameter
        return inspect.Signature([P(n, P.POSITIONAL_ONLY) for n in "xyz"[: self.arity]]
                                 + [P(k, P.POSITIONAL_OR_KEYWORD, default=v) for k, v in self.attrs.items()])

    # -- a call -------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if kwargs and args:
            if "dtype" in kwargs and self.name in CAST_FIRST:
                dtype = kwargs.pop("dtype")
                if dtype is not None:
                    args = (operand(self.name, args[0]).to(dtype), *args[1:])
            if "rounding_mode" in kwargs and self.name == "div":
                return _divided(args, kwargs)
        if not kwargs and len(args) == self.arity and self.signature is None and self.decompose is None:
            key = eager.direct_key(self, args)   # a repeated eager call on tensors: its program at once
            compiled = None if key is None else eager.direct_program(key)
            if compiled is not None:
                tensors = [a for a in args if type(a) is Tensor]
                result = compiled(*tensors)
                result._device = tensors[0]._device
                return result
        if kwargs:
            kwargs = self.keywords(kwargs)
        if self.decompose is not None:
            out = self.decompose(*args, **kwargs)
            if out is not NotImplemented:
                return out
        operands, attrs = self.bind(args, kwargs)
        return self.apply(operands, attrs)

    def keywords(self, kwargs: dict) -> dict:
        """The call's keyword arguments with NumPy's spellings (``axis``, ``keepdims``) renamed to
        the op's (``dim``, ``keepdim``); PyascError naming the op for a keyword it does not take."""
        accepted, any_name = _accepted_keywords(self)
        if any_name:
            return kwargs
        out = {}
        for k, v in kwargs.items():
            name = k if k in accepted else KEYWORD_ALIASES.get(k, k)
            if name not in accepted:
                close = difflib.get_close_matches(k, sorted(accepted), n=1)
                hint = f"; did you mean '{close[0]}'?" if close else \
                    (f"; it takes {', '.join(sorted(accepted))}" if accepted else "; it takes no keywords")
                raise PyascError(self.name, f"got an unexpected keyword argument '{k}'{hint}")
            if name in out:
                raise PyascError(self.name, f"got '{name}' twice (as '{name}' and as its alias)")
            out[name] = v
        return out

    def bind(self, args, kwargs) -> tuple[list, dict]:
        """The call's operands (Tensors, Python numbers, None for an absent optional tensor) and
        its attributes, checked and normalised."""
        if not self.elementwise:
            return self.signature(*args, **kwargs)
        n = self.arity
        if len(args) < n or len(args) > n + len(self.attrs):
            raise PyascError(self.name, f"takes {n} operand(s), got {len(args)}")
        given = dict(zip(self.attrs, args[n:]))
        twice = set(given) & set(kwargs)
        if twice:
            raise PyascError(self.name, f"got multiple values for {sorted(twice)}")
        given.update(kwargs)
        operands = [operand(self.name, x) for x in args[:n]]
        try:
            attrs = self.normalise_attrs(given)
        except (TypeError, ValueError) as e:
            raise PyascError(self.name, str(e)) from None
        return operands, attrs

    def normalise_attrs(self, given: dict) -> dict:
        """An elementwise op's attributes with defaults filled in; TypeError on unknown names."""
        unknown = set(given) - set(self.attrs)
        if unknown:
            raise TypeError(f"{self.name}() got unexpected keyword argument(s) {sorted(unknown)}")
        out = {**self.attrs, **given}
        if self.check_attrs is not None:
            self.check_attrs(out)
        return out

    def types(self, operands, attrs) -> Types | None:
        """The dtype and shape rule applied to one call; PyascError for operands it does not take."""
        if not self.elementwise:
            return None if self.infer is None else self.infer(operands, attrs)
        kinds = _zero_dim_kinds(operands)
        if not any(isinstance(o, Tensor) for o in operands):
            raise PyascError(self.name, "needs at least one tensor operand, got "
                             + ", ".join(describe(o) for o in operands))
        shapes = [o.shape if isinstance(o, Tensor) else None for o in operands]
        names = [o.dtype.name if isinstance(o, Tensor) else type(o).__name__ for o in operands]
        compute, result = self.rule(amp.operand_dtypes(self.name, kinds) if amp.active() else kinds, attrs)
        if not compute.is_floating_point:
            for o in operands:
                if not isinstance(o, Tensor) and not -(2 ** 31) <= o < 2 ** 31:
                    raise PyascError(self.name, f"value {o} cannot be converted to int32 without overflow",
                                     shapes=shapes, dtypes=names)
        if compute not in self.dtypes:
            hint = ""
            if compute in dt.STORAGE_DTYPES:
                hint = f"; {compute.name} is a storage dtype: convert with .to(pyasc.int32) or .float() first"
            raise PyascError(self.name, f"does not support dtype {compute.name} (operands: "
                             f"{', '.join(describe(o) for o in operands)}; supported: "
                             f"{', '.join(d.name for d in self.dtypes)}){hint}", shapes=shapes, dtypes=names)
        return Types(compute, ((result, broadcast_shapes_or_raise(self.name, shapes, names)),))

    def apply(self, operands: list, attrs: dict):
        """Apply the op to bound operands and attributes: traced or eagerly."""
        types = self.types(operands, attrs)
        trace = self._trace_of(operands)
        if trace is not None:
            result = self._traced(trace, operands, attrs, types)
        else:
            result = self._eagerly(operands, attrs, types)
        return tape.record(self, operands, attrs, types, result)

    # -- inside pyasc.jit ---------------------------------------------------------------------
    def _trace_of(self, operands):
        traces = {id(o._trace): o._trace for o in operands if isinstance(o, Tensor) and o._trace is not None}
        if not traces:
            return None
        if len(traces) > 1:
            raise PyascError(self.name, "operands come from different traced functions",
                             shapes=[o.shape for o in operands if isinstance(o, Tensor)])
        (trace,) = traces.values()
        if trace is not current_trace():
            raise PyascError(self.name, "a traced tensor was used outside its pyasc.jit function "
                             "(do not keep traced tensors after the function returns)")
        return trace

    def _traced(self, trace, operands, attrs, types):
        if self.build is None:
            raise_host_only(self.name, operands)
        empty = self._empty_results(operands, attrs, types)
        if empty is not None:       # an empty result is known from its shape: a constant, no IR
            return self.pack(empty) if len(empty) > 1 or self.pack is not tuple else empty[0]
        loc = user_location()
        elementwise = self.elementwise
        with trace.at(loc):
            values = []
            for o in operands:
                if isinstance(o, Tensor):
                    v = o._value if o._trace is not None else trace.constant(o._data, o.dtype)
                    if elementwise and not (self.raw_bool and dt.bool_ in (o.dtype, types.compute)):
                        v = trace.broadcast(trace.cast(v, types.compute), types.results[0][1])
                elif elementwise:
                    try:
                        v = trace.splat(o, types.compute, types.results[0][1])
                    except OverflowError as e:
                        raise PyascError(self.name, str(e), shapes=[types.results[0][1]],
                                         dtypes=[types.compute.name], location=loc) from None
                else:
                    v = o
                values.append(v)
            built = self.build(trace, values, types, attrs)
            if isinstance(built, Operation) and built.parent is None:
                trace.emit(built)
            several = isinstance(built, tuple | list) or (isinstance(built, Operation) and len(built.results) > 1)
            outs = list(built.results if isinstance(built, Operation) else built if several else [built])
            if elementwise:
                outs = [trace.cast(v, types.results[0][0]) for v in outs]
        results = [_traced_or_empty(trace, v) for v in outs]
        if self.kind == VIEW:
            trace.view_ids.update(id(r) for r in results)
            if isinstance(operands[0], Tensor) and operands[0]._trace is trace:
                record_views(trace, operands[0], results)
        return self.pack(results) if several else results[0]

    def _empty_results(self, operands, attrs, types):
        """The results of a traced call as concrete empty tensors when they all have a zero-size
        shape (else None). Without a shape rule, a call with an empty operand learns its result
        shapes from the reference run on zeros in place of the traced operands."""
        if types is not None:
            if not all(0 in shape for _, shape in types.results):
                return None
            return [Tensor(np.empty(shape, d.np_dtype), d) for d, shape in types.results]
        if self.reference is None or not any(isinstance(o, Tensor) and 0 in o._shape for o in operands):
            return None
        stand_ins = [Tensor(np.zeros(o._shape, o._dtype.np_dtype), o._dtype) if isinstance(o, Tensor) and
                     o._trace is not None else o for o in operands]
        try:
            out = self.evaluate(stand_ins, attrs)
        except (PyascError, ValueError, IndexError, TypeError):
            return None
        outs = list(out) if isinstance(out, tuple | list) else [out]
        arrays = [o.numpy() if isinstance(o, Tensor) else np.asarray(o) for o in outs]
        if not arrays or any(a.size for a in arrays):
            return None
        try:
            return [Tensor(np.empty(a.shape, a.dtype), dt.get_dtype(a.dtype)) for a in arrays]
        except TypeError:           # a reference dtype pyasc has no tensors of
            return None

    # -- eagerly ------------------------------------------------------------------------------
    def _eagerly(self, operands, attrs, types):
        tensors = [o for o in operands if isinstance(o, Tensor)]
        first = tensors[0]
        for t in tensors[1:]:
            if t._device is not first._device:
                raise PyascError(self.name, f"expected all tensors on the same device, got {first._device} "
                                 f"and {t._device} (use pyasc.copy_to_device)", shapes=[t.shape for t in tensors])
        mode = self.eager(*operands, **attrs) if callable(self.eager) else self.eager
        if self.reference is not None and _has_empty(operands, types):
            mode = HOST     # nothing to compute: no kernel is ever launched on a zero-size tensor
        compiled = None
        if mode != HOST and eager.get_eager_backend() != "reference":
            key = (self, tuple(_operand_key(o) for o in operands),
                   tuple((k, repr(v)) for k, v in attrs.items()))
            compiled = eager.compiled_program(key, lambda: self._program(operands, attrs), tensors,
                                              fallible=mode == DEVICE_OR_HOST)
        if compiled is not None:
            out = compiled(*tensors)
            several = compiled.returns_tuple
            results = list(out) if several else [out]
            if (len(operands) == self.arity and self.elementwise and self.decompose is None
                    and not callable(self.eager) and attrs == dict(self.attrs)):
                eager.remember_direct(eager.direct_key(self, tuple(operands)), compiled)
        else:
            out = self.evaluate(operands, attrs, types)
            several = isinstance(out, tuple | list)
            results = [_wrap(a, first, d) for a, d in _with_dtypes(out if several else [out], types)]
        for r in results:
            r._device = first._device
            if self.elementwise and first._format is not Format.ND and r._shape == first._shape:
                r._format = first._format
        if self.kind == VIEW:
            view_update.remember_views(first, results)
        return self.pack(results) if several else results[0]

    def _program(self, operands, attrs):
        """A Python function of the tensor operands only (everything else baked in) applying the op."""
        positions = [i for i, o in enumerate(operands) if isinstance(o, Tensor)]
        template = [None if isinstance(o, Tensor) else o for o in operands]   # keeps no data alive

        def program(*tensors):
            args = list(template)
            for i, t in zip(positions, tensors):
                args[i] = t
            return self.apply(args, attrs)

        program.__name__ = program.__qualname__ = f"eager_{self.name}"
        return program

    # -- the reference ------------------------------------------------------------------------
    def evaluate(self, operands, attrs, types: Types | None = None):
        """The op's NumPy reference on bound operands: with ``types``, operands are rounded to the
        compute dtype and widened to float64 (int64) first and results cast to their dtypes."""
        compute = types.compute if types is not None else None
        arrays = []
        for o in operands:
            if isinstance(o, Tensor):
                o = o._concrete(self.name)
            arrays.append(o if compute is None or o is None else _as_compute(o, compute))
        try:
            with warnings.catch_warnings():   # the mean of nothing is NaN, as in PyTorch, silently
                warnings.simplefilter("ignore", RuntimeWarning)
                out = self.reference(*arrays, **attrs)
        except ValueError as e:       # NumPy's reductions of nothing (max of an empty array, ...)
            if not any(isinstance(a, np.ndarray) and a.size == 0 for a in arrays):
                raise
            raise PyascError(self.name, f"cannot be computed on an empty tensor ({e})",
                             shapes=[a.shape for a in arrays if isinstance(a, np.ndarray)]) from None
        if types is None:
            return out
        if isinstance(out, tuple | list):
            return tuple(_result(a, d, compute) for a, (d, _) in zip(out, types.results))
        return _result(out, types.results[0][0], compute)


# NumPy's keyword spellings, accepted wherever an op takes PyTorch's
KEYWORD_ALIASES = {"axis": "dim", "keepdims": "keepdim"}


def _divided(args, kwargs):
    """``div(a, b, rounding_mode=...)``: the quotient rounded towards 0 (``"trunc"``) or down (``"floor"``); with
    integer operands an integer, exact."""
    from .ops import get_op

    mode = kwargs.pop("rounding_mode")
    if mode not in ROUNDING_MODES or kwargs or len(args) != 2:
        raise PyascError("div", f"takes a, b and rounding_mode (None, 'trunc' or 'floor'), got {describe(mode)} "
                         f"and {sorted(kwargs) or len(args)}")
    a, b = args
    if mode is None:
        return get_op("div")(a, b)
    floor = get_op("floor_divide")(a, b)
    if mode == "floor":
        return floor
    ta, tb = (x if isinstance(x, Tensor) else None for x in (a, b))
    if all(t is None or not t.dtype.is_floating_point for t in (ta, tb)) and not any(
            isinstance(x, float) for x in (a, b)):  # integers: the floor, one up where it rounded a negative down
        rem = get_op("remainder")(a, b)
        return get_op("where")((rem != 0) & (floor < 0), floor + 1, floor)  # a negative quotient, not whole
    return get_op("trunc")(get_op("div")(a, b))


@functools.cache
def _accepted_keywords(op: OpDef) -> tuple[frozenset, bool]:
    """The keyword names a call of ``op`` takes, and whether it takes any (``**kwargs``)."""
    if op.elementwise and op.decompose is None:
        return frozenset(op.attrs), False
    fn = op.decompose if op.decompose is not None else op.signature
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return frozenset(), True
    kinds = inspect.Parameter
    if any(p.kind is kinds.VAR_KEYWORD for p in params):
        return frozenset(), True
    return frozenset(p.name for p in params if p.kind in (kinds.POSITIONAL_OR_KEYWORD, kinds.KEYWORD_ONLY)), False


def _zero_dim_kinds(operands) -> list:
    """What the dtype rule of an elementwise op sees of each operand: a tensor's dtype, a Python
    number as it is. As in PyTorch, a 0-d tensor next to tensors with dimensions takes part in the
    promotion only with a higher category (bool < integer < floating point): ``bfloat16`` with a 0-d
    ``float32`` is ``bfloat16``, ``int8`` with a 0-d ``int32`` is ``int8``; otherwise it is seen as
    the dtype of the others."""
    kinds = [o.dtype if isinstance(o, Tensor) else o for o in operands]
    dims = [o.dtype for o in operands if isinstance(o, Tensor) and o.ndim > 0]
    if not dims or len(dims) == sum(isinstance(o, Tensor) for o in operands):
        return kinds
    d = functools.reduce(dt.promote_types, dims)
    for i, o in enumerate(operands):
        if isinstance(o, Tensor) and o.ndim == 0 and o.dtype is not dt.bool_ and _category(o.dtype) == _category(d):
            kinds[i] = d
    return kinds


def _category(d: DType) -> int:
    return 2 if d.is_floating_point else 0 if d is dt.bool_ else 1


def _traced_or_empty(trace, v) -> Tensor:
    """The traced tensor of IR value ``v``; a zero-size one is a constant empty tensor instead
    (the ops that made it are dead code)."""
    d, shape = dt.get_dtype(v.type.get_element_type()), tuple(v.type.get_shape())
    if 0 in shape:
        return Tensor(np.empty(shape, d.np_dtype), d)
    return Tensor._traced(trace, v, d, shape)


def _has_empty(operands, types: Types | None) -> bool:
    """Whether a call has a zero-size tensor operand or result (its result then follows from the
    shapes alone: empty, or the reduction of nothing)."""
    if any(isinstance(o, Tensor) and 0 in o._shape for o in operands):
        return True
    return types is not None and any(0 in shape for _, shape in types.results)


def _operand_key(o):
    if isinstance(o, Tensor):
        return o._shape, o._dtype.name
    if o is None:
        return None
    return type(o).__name__, repr(o)


def _as_compute(x, dtype: DType) -> np.ndarray:
    """An operand (array or Python scalar) rounded to ``dtype`` and widened to float64/int64."""
    a = np.asarray(x)
    if not isinstance(x, np.ndarray):
        a = np.asarray(x, dtype=np.float64 if dtype.is_floating_point else np.int64)
    with np.errstate(all="ignore"):
        a = a.astype(dtype.np_dtype)
    return a.astype(np.float64 if dtype.is_floating_point else np.int64)


def _result(out, result: DType, compute: DType | None) -> np.ndarray:
    """A reference result as an array of dtype ``result`` (float to int truncates toward zero, as
    ``asctensor.cast``); an array that already has it is returned as it is (a view stays one)."""
    out = np.asarray(out)
    if out.dtype == result.np_dtype:
        return out
    if result is dt.bool_:
        return out != 0
    with np.errstate(all="ignore"):
        if result.is_floating_point or compute is None or not compute.is_floating_point:
            return out.astype(result.np_dtype)
        return np.trunc(out).astype(np.int64).astype(result.np_dtype)


def _with_dtypes(arrays, types: Types | None):
    if types is None:
        return [(a, None) for a in arrays]
    return [(a, d) for a, (d, _) in zip(arrays, types.results)]


def _wrap(a, like: Tensor, dtype: DType | None) -> Tensor:
    if isinstance(a, Tensor):
        return a
    return Tensor(a, dtype, device=like._device)
