"""The ``ascendc`` dialect, part 1: the base of every op, GM and core queries, TPipe/TQue/TBuf, static
local tensors, data movement and the host launch (enums and types: ``attributes.py``; synchronisation:
``sync.py``).

Every op derives from :class:`AscendCOperation`, the one definition of what the op is:

* its pipe and the buffers it reads and writes: the traits ``OnPipe`` and ``BufferEffects``
  (``dialects/traits.py``; an op without ``OnPipe`` occupies no pipe);
* its Ascend C name ``API`` and how it prints: ``CALL``, a C++ statement over the op's operand and
  property names, or an override of ``print_ascendc`` (the kernel emitter calls it);
* ``NEEDS_TPIPE``: the API fetches event ids through the kernel's TPipe (``contract.py``);
* ``BATCHABLE``: whether the simulator's code for the op is correct for a group of cores run at once;
  ``ORDERED_TRACE``: whether its trace depends on the cores run before (then only its data path is);
* vector instructions add their cost class ``COST`` and their NumPy semantics ``numpy_operation``
  (``vector.py``).
"""

from __future__ import annotations

from typing import ClassVar, Protocol

from xdsl.dialects.builtin import I64, IndexType, IntegerAttr, ModuleOp, SymbolRefAttr
from xdsl.traits import SymbolTable
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    base,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.utils.exceptions import VerifyException

from ..lazy_format import irdl_op_definition
from ..target import LOCAL_MEMORIES, Pipe, module_target
from ..traits import BufferEffects, CarriesUndefined, OnPipe, ValueDependentTrace
from ..types import element_bytes, kernel_ctype
from .contract import violation
from .attributes import (
    POSITION_MEMORY,
    GlobalTensorType,
    GmAddrType,
    LocalTensorType,
    TBufType,
    TensorLike,
    TPipeType,
    TPosition,
    TPositionAttr,
    TQueType,
)

# ----------------------------------------------------------------------------------------------
# the base of every op


class CallPrinter(Protocol):
    """What ``AscendCOperation.print_ascendc`` may ask of the kernel emitter."""

    def expr(self, value: SSAValue) -> str:
        """The C++ expression of a value (an inlined literal or a variable)."""
        ...

    def expr_as(self, value: SSAValue, ctype: str) -> str:
        """``value`` for a brace-initialised field of type ``ctype`` (cast unless a literal)."""
        ...

    def declare(self, value: SSAValue) -> str:
        """The variable a result is declared as."""
        ...

    def format(self, op: Operation, template: str) -> str:
        """``template`` with the op's operand and property names, ``api``, ``res``, ``RT`` and ``T`` filled in."""
        ...

    def section(self, head: str, block: Block) -> None:
        """Print ``head { block }``."""
        ...

    def error(self, op: Operation, predicate: str) -> Exception:
        """The error to raise for an op that cannot be printed here: "op <op> <predicate>"."""
        ...


class AscendCOperation(IRDLOperation):
    """Base of every ``ascendc`` op (see the module docstring).

    ``CALL`` fields: the op's operand and property names, ``api`` (``API``), ``res`` (the result's
    variable), ``RT`` (its C++ type) and ``T`` (the element type of the tensors involved).
    """

    API: ClassVar[str] = ""
    CALL: ClassVar[str] = ""
    BATCHABLE: ClassVar[bool] = False
    # what the simulator records for the op depends on what earlier cores of the launch did (the L2 lines
    # they read), so a group of cores runs its data path together but is traced core by core
    ORDERED_TRACE: ClassVar[bool] = False
    # the API takes event ids from the TPipe: not allowed in a kernel without one (static-api-whitelist-a2)
    NEEDS_TPIPE: ClassVar[bool] = False

    def print_ascendc(self, p: CallPrinter) -> str | list[str]:
        """The Ascend C statement(s) of this op."""
        if not self.CALL:
            raise p.error(self, "has no Ascend C form")
        return p.format(self, self.CALL)


def const_int(value) -> int | None:
    """The integer of an ``arith.constant`` SSA value, else None (by the op's name: a program without
    constants does not load the arith dialect)."""
    owner = getattr(value, "owner", None)
    if isinstance(owner, Operation) and owner.name == "arith.constant":
        attr = owner.properties.get("value")
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return None


def producer_pipe(op: Operation) -> Pipe:
    """The pipe of ``EnQue``/``AllocTensor`` on a queue: its (source) position's producer."""
    return op.queue.type.pipes()[0]


def consumer_pipe(op: Operation) -> Pipe:
    """The pipe of ``DeQue``/``FreeTensor`` on a queue: its (destination) position's consumer."""
    return op.queue.type.pipes()[1]


def copy_pipe(op: Operation) -> Pipe:
    """The pipe of a copy: GM -> local on MTE2, local -> GM on MTE3, local -> local on V."""
    if isinstance(op.dst.type, GlobalTensorType):
        return Pipe.MTE3
    return Pipe.MTE2 if isinstance(op.src.type, GlobalTensorType) else Pipe.V


# ----------------------------------------------------------------------------------------------
# global memory, cores, TPipe / TQue / TBuf, static local tensors

MAX_QUEUE_BUFFERS = 8  # queue buffers per TPosition on arch 2201: one hardware event id each


@irdl_op_definition
class GlobalTensorOp(AscendCOperation):
    """``GlobalTensor<T> g; g.SetGlobalBuffer((__gm__ T*)addr, size);`` with ``size`` in elements."""

    name = "ascendc.global_tensor"
    API: ClassVar[str] = "SetGlobalBuffer"
    BATCHABLE: ClassVar[bool] = True
    addr = operand_def(GmAddrType)
    size = prop_def(IntegerAttr[I64])
    result = result_def(GlobalTensorType)
    assembly_format = "$addr `size` $size attr-dict `:` type($result)"

    def __init__(self, addr, size: int, element_type: Attribute):
        super().__init__(operands=[addr], properties={"size": IntegerAttr(size, 64)},
                         result_types=[GlobalTensorType(element_type)])

    def print_ascendc(self, p: CallPrinter) -> list[str]:
        t = kernel_ctype(self.result.type.element_type)
        g = p.declare(self.result)
        return [f"AscendC::GlobalTensor<{t}> {g};",
                f"{g}.SetGlobalBuffer((__gm__ {t}*){p.expr(self.addr)}, {self.size.value.data});"]

    def verify_(self) -> None:
        if self.size.value.data <= 0:
            raise VerifyException(f"global tensor size must be positive, got {self.size.value.data}")


@irdl_op_definition
class SubviewOp(AscendCOperation):
    """``t[offset]``: the tensor starting ``offset`` elements into ``t`` (global or local)."""

    name = "ascendc.subview"
    CALL: ClassVar[str] = "{RT} {res} = {source}[{offset}];"
    BATCHABLE: ClassVar[bool] = True
    T: ClassVar = VarConstraint("T", TensorLike)
    source = operand_def(T)
    offset = operand_def(IndexType)
    result = result_def(T)
    assembly_format = "$source `[` $offset `]` attr-dict `:` type($result)"

    def __init__(self, source, offset):
        super().__init__(operands=[source, offset], result_types=[source.type])

    def verify_(self) -> None:
        off = const_int(self.offset)
        if off is not None and off < 0:
            raise VerifyException(f"subview offset must be non-negative, got {off}")


@irdl_op_definition
class GetBlockIdxOp(AscendCOperation):
    """``GetBlockIdx()``: the index of the core running this instance of the kernel."""

    name = "ascendc.get_block_idx"
    API: ClassVar[str] = "GetBlockIdx"
    CALL: ClassVar[str] = "int64_t {res} = AscendC::{api}();"
    BATCHABLE: ClassVar[bool] = True
    result = result_def(IndexType)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self):
        super().__init__(result_types=[IndexType()])


@irdl_op_definition
class GetBlockNumOp(AscendCOperation):
    """``GetBlockNum()``: the number of cores the kernel was launched on."""

    name = "ascendc.get_block_num"
    API: ClassVar[str] = "GetBlockNum"
    CALL: ClassVar[str] = "int64_t {res} = AscendC::{api}();"
    BATCHABLE: ClassVar[bool] = True
    result = result_def(IndexType)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self):
        super().__init__(result_types=[IndexType()])


@irdl_op_definition
class TPipeOp(AscendCOperation):
    """``TPipe pipe;``: one per kernel, owns the UB space handed out by ``InitBuffer``."""

    name = "ascendc.tpipe"
    API: ClassVar[str] = "TPipe"
    CALL: ClassVar[str] = "AscendC::TPipe {res};"
    BATCHABLE: ClassVar[bool] = True
    result = result_def(TPipeType)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self):
        super().__init__(result_types=[TPipeType()])


@irdl_op_definition
class TPipeResetOp(AscendCOperation):
    """``pipe.Reset()``: gives back everything ``InitBuffer`` and ``AllocEventID`` handed out, as the TPipe was
    when made; buffers initialised before are dead (doc: TPipe/Reset.md)."""

    name = "ascendc.tpipe_reset"
    API: ClassVar[str] = "Reset"
    CALL: ClassVar[str] = "{pipe}.Reset();"
    BATCHABLE: ClassVar[bool] = True
    FORGETS_LOCAL_MEMORY: ClassVar[bool] = True  # what InitBuffer hands out next holds whatever was there
    pipe = operand_def(TPipeType)
    assembly_format = "$pipe attr-dict"

    def __init__(self, pipe):
        super().__init__(operands=[pipe])


@irdl_op_definition
class TQueOp(AscendCOperation):
    """``TQue<pos, depth> q;``, or ``TQueBind<src, dst, depth> q;`` when the type binds two positions."""

    name = "ascendc.tque"
    API: ClassVar[str] = "TQue"
    BATCHABLE: ClassVar[bool] = True
    result = result_def(TQueType)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, position: TPosition, depth: int, dst: TPosition | None = None):
        super().__init__(result_types=[TQueType(position, depth, dst)])

    def print_ascendc(self, p: CallPrinter) -> str:
        t = self.result.type
        pos = f"AscendC::TPosition::{t.position.data.value}"
        if t.bound:
            return (f"AscendC::TQueBind<{pos}, AscendC::TPosition::{t.dst.data.value}, {t.depth.data}> "
                    f"{p.declare(self.result)};")
        return f"AscendC::TQue<{pos}, {t.depth.data}> {p.declare(self.result)};"


@irdl_op_definition
class TBufOp(AscendCOperation):
    """``TBuf<pos> b;``"""

    name = "ascendc.tbuf"
    API: ClassVar[str] = "TBuf"
    BATCHABLE: ClassVar[bool] = True
    result = result_def(TBufType)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, position: TPosition = TPosition.VECCALC):
        super().__init__(result_types=[TBufType(position)])

    def print_ascendc(self, p: CallPrinter) -> str:
        return f"AscendC::TBuf<AscendC::TPosition::{self.result.type.position.data.value}> {p.declare(self.result)};"


@irdl_op_definition
class InitBufferOp(AscendCOperation):
    """``pipe.InitBuffer(q, num, len)`` / ``pipe.InitBuffer(buf, len)``: ``num`` buffers of ``len`` bytes."""

    name = "ascendc.init_buffer"
    API: ClassVar[str] = "InitBuffer"
    BATCHABLE: ClassVar[bool] = True
    pipe = operand_def(TPipeType)
    buffer = operand_def(base(TQueType) | base(TBufType))
    num = prop_def(IntegerAttr[I64])
    length = prop_def(IntegerAttr[I64])
    assembly_format = "$pipe `,` $buffer `num` $num `len` $length attr-dict `:` type($buffer)"

    def __init__(self, pipe, buffer, num: int, length: int):
        super().__init__(operands=[pipe, buffer],
                         properties={"num": IntegerAttr(num, 64), "length": IntegerAttr(length, 64)})

    def print_ascendc(self, p: CallPrinter) -> str:
        pipe, buf, length = p.expr(self.pipe), p.expr(self.buffer), self.length.value.data
        if isinstance(self.buffer.type, TBufType):
            return f"{pipe}.InitBuffer({buf}, {length});"
        return f"{pipe}.InitBuffer({buf}, {self.num.value.data}, {length});"

    def verify_(self) -> None:
        if self.length.value.data <= 0 or self.length.value.data % 32:
            raise VerifyException(f"InitBuffer length must be a positive multiple of 32 B, got {self.length.value.data}")
        t = self.buffer.type
        # num is the buffer count (2: double buffering); the depth (EnQue calls in a row) is independent of it
        if isinstance(t, TQueType) and not 1 <= self.num.value.data <= MAX_QUEUE_BUFFERS:
            raise VerifyException(f"InitBuffer num {self.num.value.data} must be in 1..{MAX_QUEUE_BUFFERS}")
        if isinstance(t, TBufType) and self.num.value.data != 1:
            raise VerifyException("InitBuffer of a TBuf takes num = 1")
        if isinstance(t, TQueType):
            self._verify_position_buffers(t.position.data)

    def _verify_position_buffers(self, position: TPosition) -> None:
        """The queue buffers on one TPosition, summed over the kernel's InitBuffers since the TPipe was made or
        last reset (``Reset``) until its next reset, are at most 8."""
        block = self.parent_block()
        if block is None:
            return
        stretch: list = []
        for o in block.ops:
            if isinstance(o, TPipeResetOp) and o.pipe == self.pipe:
                if self in stretch:
                    break
                stretch = []
            elif isinstance(o, InitBufferOp):
                stretch.append(o)
        total = sum(o.num.value.data for o in stretch if isinstance(o.buffer.type, TQueType)
                    and o.buffer.type.position.data == position)
        if total > MAX_QUEUE_BUFFERS:
            raise violation("tque-max-buffers-per-pos-8",
                            f"{total} queue buffers on {position.value} (InitBuffer num summed over the kernel)")


@irdl_op_definition
class AllocTensorOp(AscendCOperation):
    """``q.AllocTensor<T>()``: the next free buffer of the queue (waits until it was freed)."""

    name = "ascendc.alloc_tensor"
    API: ClassVar[str] = "AllocTensor"
    CALL: ClassVar[str] = "{RT} {res} = {queue}.AllocTensor<{T}>();"
    BATCHABLE: ClassVar[bool] = True
    traits = traits_def(OnPipe(producer_pipe))
    queue = operand_def(TQueType)
    result = result_def(LocalTensorType)
    assembly_format = "$queue attr-dict `:` type($queue) `->` type($result)"

    def __init__(self, queue, element_type: Attribute):
        super().__init__(operands=[queue], result_types=[LocalTensorType(element_type)])


@irdl_op_definition
class EnQueOp(AscendCOperation):
    """``q.EnQue(t)``: hand ``t`` to the consumer side once the producer pipe has written it."""

    name = "ascendc.enque"
    API: ClassVar[str] = "EnQue"
    CALL: ClassVar[str] = "{queue}.EnQue({tensor});"
    BATCHABLE: ClassVar[bool] = True
    traits = traits_def(OnPipe(producer_pipe))
    queue = operand_def(TQueType)
    tensor = operand_def(LocalTensorType)
    assembly_format = "$queue `,` $tensor attr-dict `:` type($queue) `,` type($tensor)"

    def __init__(self, queue, tensor):
        super().__init__(operands=[queue, tensor])


@irdl_op_definition
class DeQueOp(AscendCOperation):
    """``q.DeQue<T>()``: the oldest enqueued tensor; the consumer pipe waits for it."""

    name = "ascendc.deque"
    API: ClassVar[str] = "DeQue"
    CALL: ClassVar[str] = "{RT} {res} = {queue}.DeQue<{T}>();"
    BATCHABLE: ClassVar[bool] = True
    traits = traits_def(OnPipe(consumer_pipe))
    queue = operand_def(TQueType)
    result = result_def(LocalTensorType)
    assembly_format = "$queue attr-dict `:` type($queue) `->` type($result)"

    def __init__(self, queue, element_type: Attribute):
        super().__init__(operands=[queue], result_types=[LocalTensorType(element_type)])


@irdl_op_definition
class FreeTensorOp(AscendCOperation):
    """``q.FreeTensor(t)``: give the buffer back once the consumer pipe has read it."""

    name = "ascendc.free_tensor"
    API: ClassVar[str] = "FreeTensor"
    CALL: ClassVar[str] = "{queue}.FreeTensor({tensor});"
    BATCHABLE: ClassVar[bool] = True
    traits = traits_def(OnPipe(consumer_pipe))
    queue = operand_def(TQueType)
    tensor = operand_def(LocalTensorType)
    assembly_format = "$queue `,` $tensor attr-dict `:` type($queue) `,` type($tensor)"

    def __init__(self, queue, tensor):
        super().__init__(operands=[queue, tensor])


@irdl_op_definition
class TBufGetOp(AscendCOperation):
    """``buf.Get<T>()``: the whole scratch buffer as a tensor of ``T``."""

    name = "ascendc.tbuf_get"
    API: ClassVar[str] = "Get"
    CALL: ClassVar[str] = "{RT} {res} = {buffer}.Get<{T}>();"
    BATCHABLE: ClassVar[bool] = True
    buffer = operand_def(TBufType)
    result = result_def(LocalTensorType)
    assembly_format = "$buffer attr-dict `:` type($buffer) `->` type($result)"

    def __init__(self, buffer, element_type: Attribute):
        super().__init__(operands=[buffer], result_types=[LocalTensorType(element_type)])


@irdl_op_definition
class LocalTensorOp(AscendCOperation):
    """``LocalTensor<T> t(TPosition::pos, address, size)``: a static tensor at a UB byte address."""

    name = "ascendc.local_tensor"
    API: ClassVar[str] = "LocalTensor"
    # LocalTensor<T>(TPosition pos, uint32_t addr, uint32_t tileSize)
    CALL: ClassVar[str] = "{RT} {res}(AscendC::TPosition::{position}, {address}, {size});"
    BATCHABLE: ClassVar[bool] = True
    position = prop_def(TPositionAttr)
    address = prop_def(IntegerAttr[I64])
    size = prop_def(IntegerAttr[I64])
    result = result_def(LocalTensorType)
    assembly_format = "$position `address` $address `size` $size attr-dict `:` type($result)"

    def __init__(self, position: TPosition, address: int, size: int, element_type: Attribute):
        super().__init__(properties={"position": TPositionAttr(position), "address": IntegerAttr(address, 64),
                                     "size": IntegerAttr(size, 64)},
                         result_types=[LocalTensorType(element_type)])

    def verify_(self) -> None:
        if self.address.value.data < 0 or self.address.value.data % 32:
            raise VerifyException(f"local tensor address {self.address.value.data} is not 32 B aligned")
        if self.size.value.data <= 0:
            raise VerifyException(f"local tensor size must be positive, got {self.size.value.data}")
        memory = POSITION_MEMORY.get(self.position.data, "UB")
        top = self
        while top.parent_op() is not None:
            top = top.parent_op()
        spec = module_target(top)
        capacity = getattr(spec, LOCAL_MEMORIES[memory])
        try:
            nbytes = element_bytes(self.result.type.element_type)
        except ValueError as e:
            raise VerifyException(f"local tensor: {e}") from None
        end = self.address.value.data + self.size.value.data * nbytes
        if end > capacity:
            raise VerifyException(f"local tensor at {memory} address {self.address.value.data} with "
                                  f"{self.size.value.data} elements ends at byte {end}, past the {capacity} B of "
                                  f"{memory} on {spec.name}")


# ----------------------------------------------------------------------------------------------
# data movement


@irdl_op_definition
class DataCopyOp(AscendCOperation):
    """``DataCopy(dst, src, count)``: GM->UB (MTE2), UB->GM (MTE3) or UB->UB (V).

    ``count * sizeof(T)`` must be a multiple of 32 B (the hardware rounds down otherwise).
    """

    name = "ascendc.data_copy"
    API: ClassVar[str] = "DataCopy"
    CALL: ClassVar[str] = "AscendC::DataCopy({dst}, {src}, {count});"
    BATCHABLE: ClassVar[bool] = True
    traits = traits_def(OnPipe(copy_pipe), BufferEffects(reads=("src",), writes=("dst",)), CarriesUndefined())
    dst = operand_def(TensorLike)
    src = operand_def(TensorLike)
    count = operand_def(IndexType)
    assembly_format = "$dst `,` $src `,` $count attr-dict `:` type($dst) `,` type($src)"

    def __init__(self, dst, src, count):
        super().__init__(operands=[dst, src, count])

    def verify_(self) -> None:
        _check_copy_types(self.name, self.dst.type, self.src.type)


@irdl_op_definition
class DataCopyPadOp(AscendCOperation):
    """``DataCopyPad(dst, src, DataCopyExtParams{blockCount, blockLen, srcStride, dstStride, 0}, padParams)``.

    ``blockLen`` is in bytes. Strides are gaps between blocks: on GM->UB ``srcStride`` is in bytes and
    ``dstStride`` in 32 B blocks; on UB->GM ``srcStride`` is in 32 B blocks and ``dstStride`` in bytes.
    Each block starts at a 32 B boundary in UB; on UB->GM only the valid bytes are written. On GM->UB,
    ``right_padding`` elements of zeros follow each block (``DataCopyPadExtParams{true, 0, n, 0}``: at most 32 B,
    within the block's last 32 B).
    """

    name = "ascendc.data_copy_pad"
    API: ClassVar[str] = "DataCopyPad"
    BATCHABLE: ClassVar[bool] = True
    traits = traits_def(OnPipe(copy_pipe), BufferEffects(reads=("src",), writes=("dst",)))
    dst = operand_def(TensorLike)
    src = operand_def(TensorLike)
    block_count = operand_def(IndexType)
    block_len = operand_def(IndexType)
    src_stride = operand_def(IndexType)
    dst_stride = operand_def(IndexType)
    right_padding = opt_prop_def(IntegerAttr[I64])
    assembly_format = ("$dst `,` $src `,` `{` $block_count `,` $block_len `,` $src_stride `,` $dst_stride `}` "
                       "(`right_padding` $right_padding^)? attr-dict `:` type($dst) `,` type($src)")

    def __init__(self, dst, src, block_count, block_len, src_stride, dst_stride, right_padding: int = 0):
        super().__init__(operands=[dst, src, block_count, block_len, src_stride, dst_stride],
                         properties={"right_padding": IntegerAttr(right_padding, 64)} if right_padding else {})

    def padding(self) -> int:
        """The zero elements after each block (GM->UB)."""
        return 0 if self.right_padding is None else self.right_padding.value.data

    def print_ascendc(self, p: CallPrinter) -> str:
        # DataCopyExtParams{uint16_t blockCount, uint32_t blockLen, uint32_t srcStride, uint32_t dstStride,
        # uint32_t rsv}: brace-initialisation must not narrow, so non-constant values are cast.
        fields = [p.expr_as(self.block_count, "uint16_t"), p.expr_as(self.block_len, "uint32_t"),
                  p.expr_as(self.src_stride, "uint32_t"), p.expr_as(self.dst_stride, "uint32_t"), "0"]
        params = f"AscendC::DataCopyExtParams{{{', '.join(fields)}}}"
        dst, src = p.expr(self.dst), p.expr(self.src)
        if isinstance(self.dst.type, LocalTensorType):  # GM -> UB: zeros on the right, or no padding
            t = kernel_ctype(self.dst.type.element_type)
            pad = f"true, 0, {self.padding()}, 0" if self.padding() else "false, 0, 0, 0"
            return f"AscendC::DataCopyPad({dst}, {src}, {params}, AscendC::DataCopyPadExtParams<{t}>{{{pad}}});"
        return f"AscendC::DataCopyPad({dst}, {src}, {params});"

    def verify_(self) -> None:
        _check_copy_types(self.name, self.dst.type, self.src.type)
        if isinstance(self.dst.type, LocalTensorType) == isinstance(self.src.type, LocalTensorType):
            raise VerifyException("ascendc.data_copy_pad copies between global and local memory")
        n = const_int(self.block_count)
        if n is not None and not 0 <= n <= 4095:
            raise VerifyException(f"DataCopyPad blockCount must be in 0..4095, got {n}")
        ln = const_int(self.block_len)
        if ln is not None and not 0 <= ln <= 2097151:
            raise VerifyException(f"DataCopyPad blockLen must be in 0..2097151 bytes, got {ln}")
        if self.padding():
            pad_bytes = self.padding() * element_bytes(self.dst.type.element_type)
            if not isinstance(self.dst.type, LocalTensorType) or not 0 < pad_bytes <= 32:
                raise VerifyException(f"DataCopyPad rightPadding of {self.padding()} elements: GM->UB only, at most "
                                      "32 B")


def _check_copy_types(op: str, dst: Attribute, src: Attribute) -> None:
    if isinstance(dst, GlobalTensorType) and isinstance(src, GlobalTensorType):
        raise VerifyException(f"{op} cannot copy from global memory to global memory")
    if dst.element_type != src.element_type:  # type: ignore[attr-defined]
        raise VerifyException(f"{op} needs one element type, got {dst} and {src}")


@irdl_op_definition
class GetValueOp(AscendCOperation):
    """``t.GetValue(index)``: a scalar read on the scalar unit, of global memory (through the data
    cache) or of a local tensor in UB (which must be ordered after the pipe that wrote it: V_S)."""

    name = "ascendc.get_value"
    API: ClassVar[str] = "GetValue"
    CALL: ClassVar[str] = "{RT} {res} = {source}.GetValue({index});"
    BATCHABLE: ClassVar[bool] = True
    traits = traits_def(OnPipe(Pipe.S), BufferEffects(reads=("source",)), CarriesUndefined(), ValueDependentTrace())
    source = operand_def(TensorLike)
    index = operand_def(IndexType)
    result = result_def(AnyAttr())
    assembly_format = "$source `[` $index `]` attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source, index):
        super().__init__(operands=[source, index], result_types=[source.type.element_type])

    def verify_(self) -> None:
        if self.result.type != self.source.type.element_type:
            raise VerifyException(f"ascendc.get_value result type {self.result.type} does not match "
                                  f"the tensor element type {self.source.type.element_type}")


# ----------------------------------------------------------------------------------------------
# host side (AscendCL)


@irdl_op_definition
class LaunchOp(AscendCOperation):
    """``kernel<<<block_dim, nullptr, stream>>>(args...)`` on the host; args are GM buffers (memrefs)."""

    name = "ascendc.launch"
    kernel = prop_def(SymbolRefAttr)
    block_dim = prop_def(IntegerAttr[I64])
    args = var_operand_def()
    assembly_format = "$kernel `<` `<` `<` $block_dim `>` `>` `>` `(` $args `)` attr-dict `:` type($args)"

    def __init__(self, kernel: str, block_dim: int, args):
        super().__init__(operands=[args], properties={"kernel": SymbolRefAttr(kernel),
                                                      "block_dim": IntegerAttr(block_dim, 64)})

    def print_ascendc(self, p: CallPrinter) -> str:
        raise p.error(self, "is a host-side op and cannot appear in a kernel")

    def verify_(self) -> None:
        n = self.block_dim.value.data
        if not 1 <= n <= 65535:
            raise VerifyException(f"block_dim must be in 1..65535, got {n}")
        top = self
        while top.parent_op() is not None:
            top = top.parent_op()
        if not isinstance(top, ModuleOp):
            return
        kernel = SymbolTable.lookup_symbol(top, self.kernel)
        if kernel is None or KERNEL_ATTR not in kernel.attributes:
            return  # a launch of no kernel of this module is reported where it runs or is emitted
        name = self.kernel.root_reference.data
        declared = kernel.attributes.get(BLOCK_DIM_ATTR)
        if declared is not None and (not isinstance(declared, IntegerAttr) or declared.value.data != n):
            raise VerifyException(f"launch of @{name} on {n} cores, but the kernel declares "
                                  f"{BLOCK_DIM_ATTR} = {declared}")
        inputs = getattr(getattr(kernel, "function_type", None), "inputs", None)
        if inputs is not None and len(inputs.data) != len(self.args):
            raise VerifyException(f"launch of @{name} passes {len(self.args)} arguments, the kernel takes "
                                  f"{len(inputs.data)}")


KERNEL_ATTR = "ascendc.kernel"
BLOCK_DIM_ATTR = "ascendc.block_dim"


BASE_OPS = [GlobalTensorOp, SubviewOp, GetBlockIdxOp, GetBlockNumOp, TPipeOp, TPipeResetOp, TQueOp, TBufOp, InitBufferOp, AllocTensorOp, EnQueOp, DeQueOp, FreeTensorOp, TBufGetOp, LocalTensorOp, DataCopyOp, DataCopyPadOp, GetValueOp, LaunchOp]
