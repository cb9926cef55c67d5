"""``asc.adv.Matmul``: the high-level matmul, expanded into the cube's basic ops.

On the AIC each C block (``base_m x base_n``, the last ones clipped to the tails) is computed as
``DataCopy``+``Nd2NzParams`` of A and B (GM -> L1), ``LoadData`` (L1 -> L0A/L0B), ``Mmad`` over K in
``base_k`` steps and ``Fixpipe`` (L0C -> GM), on static L1/L0 tensors with the flags between the
pipes. ``iterate_all(c)`` writes every block into C; ``with matmul.iterate() as count:`` loops over
the blocks (M first unless the tiling's ``iterate_order`` is 1) and ``get_tensor_c`` writes block
``count`` into C, or, for a local tensor, into the GM workspace for the AIV.

In a MIX kernel the AIC serves both AIVs of its AI Core (the kernel body runs once per AIV index);
it computes everything, then sets a cross-core flag that each AIV waits for before it reads a
result (``handoff``). ``get_tensor_c(local)`` on the AIV copies the block from the workspace into
UB and adds the bias row by row. In an AIC-only kernel the bias goes through the cube's BiasTable: per block,
at its first K step, the block's bias columns GM -> L1 (ND2NZ of one row, after zeroing the row: ``DataCopy`` C1
-> C2 moves whole 64 B units), L1 -> BT (C2), and the first ``Mmad`` is the bias overload. Transposed operands
are not supported yet.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, Region

from pyasc.dialects import ascendc as A
from pyasc.dialects.ascendc.cube import DataCopyNd2NzOp, FixpipeOp, LoadDataOp, MmadOp, QuantMode

from .. import dtypes
from ..basic import get_block_idx
from ..enums import CubeFormat, LayoutMode, TPosition
from ..errors import KernelError, NeedsStatic, unsupported
from ..fwk import TBuf, TPipe
from ..structs import KernelStruct
from ..trace import Scalar, current, static_int, to_i1, to_index
from ..values import GlobalAddress, GlobalTensor, LocalTensor, emit
from . import handoff

EVENT = 0  # event id of the cube's flags inside a Matmul
UB_EVENT = 5  # event id of the AIV's flags around a hand-off copy


@dataclass(frozen=True)
class MatmulType:
    """``MatmulType<position, format, T, isTrans, layout>``."""

    position: TPosition
    format: CubeFormat
    dtype: dtypes.DataType
    is_trans: bool = False
    layout: LayoutMode = LayoutMode.NONE


def _idx(x):
    return to_index(x)


def _min(a, b) -> Scalar:
    t = current()
    return Scalar(t.val(arith.MinSIOp(_idx(a), _idx(b))), "int")


class Matmul:
    """``Matmul<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE>`` expanded into cube ops (see the module doc)."""

    def __init__(self, a: MatmulType, b: MatmulType, c: MatmulType, bias: MatmulType | None = None,
                 matmul_config=None, matmul_policy=0):
        t = current()
        t.used.add("matmul")
        for name, mt in (("a", a), ("b", b), ("c", c)):
            if not isinstance(mt, MatmulType):
                raise KernelError("adv.Matmul", f"{name} must be an asc.adv.MatmulType", location=t.loc)
            if mt.format != CubeFormat.ND:
                raise unsupported("adv.Matmul with NZ operands", "only ND matrices in GM are expanded")
        if a.is_trans or b.is_trans:
            raise unsupported("adv.Matmul with transposed A or B")
        if a.position != TPosition.GM or b.position != TPosition.GM:
            raise unsupported("adv.Matmul with A or B in local memory")
        if a.dtype != b.dtype or a.dtype.ir not in ("f16", "bf16"):
            raise unsupported(f"adv.Matmul on {a.dtype.name} x {b.dtype.name}", "half and bfloat16 inputs only")
        if c.dtype.ir not in ("f32", "f16"):
            raise unsupported(f"adv.Matmul with a {c.dtype.name} C")
        self.types = (a, b, c, bias)
        self.tiling: KernelStruct | None = None
        self.workspace: GlobalAddress | None = None
        self.pipe: TPipe | None = None
        self.a = self.b = self.bias = None
        self.tails = (None, None, None)
        self._settings: dict[str, tuple] = {}  # setting -> the run-time ``if`` branches it was made in
        self._cube = None
        self._ws = None
        self._bias_buf = None
        self._bias_on_cube = False
        self._bias_rows = None
        self._loop: Scalar | None = None

    # -- configuration ---------------------------------------------------------------------------
    def init(self, tiling) -> None:
        self.tiling = tiling

    def set_tensor_a(self, tensor, transpose: bool = False) -> None:
        if transpose:
            raise unsupported("adv.Matmul.set_tensor_a(transpose=True)")
        if not isinstance(tensor, GlobalTensor):
            raise unsupported("adv.Matmul.set_tensor_a with a scalar or local tensor")
        self.a = tensor
        self._note_setting("set_tensor_a")

    def set_tensor_b(self, tensor, transpose: bool = False) -> None:
        if transpose:
            raise unsupported("adv.Matmul.set_tensor_b(transpose=True)")
        if not isinstance(tensor, GlobalTensor):
            raise unsupported("adv.Matmul.set_tensor_b with a scalar or local tensor")
        self.b = tensor
        self._note_setting("set_tensor_b")

    def _configured_here(self, api: str) -> None:
        """A setting made inside a run-time ``if`` that the matmul's own calls are not in would hold on both of its
        paths (the trace runs both): it needs the condition when the kernel is traced (the ``if`` is then taken
        at trace time, the kernel specialised to it), else it is an error. Where set_tensor_a was called tells
        where the matmul's calls are."""
        home = self._settings.get("set_tensor_a")
        path = tuple(current().if_path)
        if home is not None and path[:len(home)] == home and len(path) > len(home):
            raise NeedsStatic(f"adv.Matmul.{api}", "called under a run-time `if` that set_tensor_a is not under: "
                                                  "its condition must be known when the kernel is traced",
                              location=current().loc)
        self._note_setting(api)

    def _note_setting(self, api: str) -> None:
        self._settings[api] = tuple(current().if_path)

    def _check_settings(self, api: str) -> None:
        """Every setting was made in the run-time ``if`` branches that hold this call (or outside them): one made in
        another branch would hold here on both of that ``if``'s paths."""
        path = tuple(current().if_path)
        for setting, where in self._settings.items():
            if path[:len(where)] != where:
                raise KernelError(f"adv.Matmul.{api}", f"{setting} was called under a run-time `if` that does not "
                                                       "hold this call: the trace runs both paths of the `if`, so "
                                                       "the setting would hold on both; call it where the matmul "
                                                       "runs, or under an `if` known when the kernel is traced",
                                  location=current().loc)

    def set_bias(self, tensor) -> None:
        t = current()
        self._configured_here("set_bias")
        self._bias_on_cube = t.mode == "aic" and t.block_idx is None  # an AIC-only kernel: BiasTable
        if self._bias_on_cube and (not isinstance(tensor, GlobalTensor) or tensor.dtype.ir not in ("f32", "f16")):
            raise unsupported("adv.Matmul.set_bias in an AIC-only kernel with a local or non-float32/half bias",
                              "BiasTable takes a float32 or half row from L1")
        self.bias = tensor
        if t.mode == "aiv" and self._bias_buf is None and self.pipe is not None:
            bn = static_int(self._tiling("set_bias").base_n, "adv.Matmul", "the tiling's base_n")
            buf = TBuf(TPosition.VECCALC)
            self.pipe.init_buffer(buf, bn * 4)
            self._bias_buf = buf

    def disable_bias(self) -> None:
        self._configured_here("disable_bias")
        self.bias = None

    def set_tail(self, tail_m=-1, tail_n=-1, tail_k=-1) -> None:
        def keep(x):
            return None if isinstance(x, int) and x < 0 else x

        self.tails = (keep(tail_m), keep(tail_n), keep(tail_k))
        self._note_setting("set_tail")

    def set_org_shape(self, *args) -> None:
        raise unsupported("adv.Matmul.set_org_shape", "the tiling's m, n, k_a give the shapes")

    def set_single_shape(self, *args) -> None:
        raise unsupported("adv.Matmul.set_single_shape", "use set_tail")

    def end(self) -> None:
        pass

    # -- geometry --------------------------------------------------------------------------------
    def _tiling(self, api: str) -> KernelStruct:
        if self.tiling is None:
            raise KernelError(f"adv.Matmul.{api}", "the Matmul has no tiling (asc.adv.register_matmul(pipe, "
                                                  "workspace, matmul, tiling))", location=current().loc)
        return self.tiling

    def _geometry(self, api: str):
        self._check_settings(api)
        tl = self._tiling(api)
        bm = static_int(tl.base_m, "adv.Matmul", "the tiling's base_m")
        bn = static_int(tl.base_n, "adv.Matmul", "the tiling's base_n")
        bk = static_int(tl.base_k, "adv.Matmul", "the tiling's base_k")
        sm = self.tails[0] if self.tails[0] is not None else tl.single_core_m
        sn = self.tails[1] if self.tails[1] is not None else tl.single_core_n
        sk = self.tails[2] if self.tails[2] is not None else tl.single_core_k
        mb, nb = _ceil(sm, bm), _ceil(sn, bn)
        order = static_int(tl.iterate_order, "adv.Matmul", "the tiling's iterate_order")
        return bm, bn, bk, sm, sn, sk, mb, nb, order

    def _block(self, count, geom):
        """(row block, column block, valid rows, valid columns) of block ``count``."""
        bm, bn, _, sm, sn, _, mb, nb, order = geom
        if order == 0:
            mi, nj = count % mb, count // mb
        else:
            mi, nj = count // nb, count % nb
        return mi, nj, _min(bm, sm - mi * bm), _min(bn, sn - nj * bn)

    # -- the AIC: blocks -----------------------------------------------------------------------------
    def _buffers(self, bm: int, bn: int, bk: int):
        if self._cube is not None:
            return self._cube
        t = current()
        spec = t.launch.get("spec")
        es = self.types[0].dtype.sizeof()
        a_bytes, b_bytes = bm * bk * es, bk * bn * es
        limits = {"L0A": (a_bytes, 64 * 1024), "L0B": (b_bytes, 64 * 1024), "L0C": (bm * bn * 4, 128 * 1024),
                  "L1": (a_bytes + b_bytes + 512, 512 * 1024)}
        for mem, (need, cap) in limits.items():
            if need > (getattr(spec, f"{mem.lower()}_bytes", cap) if spec else cap):
                raise KernelError("adv.Matmul", f"the base block {bm}x{bn}x{bk} needs {need} B of {mem}, more than "
                                                f"it has", location=t.loc)
        et = self.types[0].dtype.attr
        b1_addr = -(-a_bytes // 512) * 512

        def local(pos, addr, n, ty, name):
            v = t.preamble(A.LocalTensorOp(pos, addr, n, ty))
            v.name_hint = name
            return v

        t.preamble(A.SetMMRowMajorOp())  # Mmad results N first: the order the Fixpipe reads them with unit flags
        self._cube = (local(A.TPosition.A1, 0, bm * bk, et, "mmA1"), local(A.TPosition.B1, b1_addr, bk * bn, et, "mmB1"),
                      local(A.TPosition.A2, 0, bm * bk, et, "mmA2"), local(A.TPosition.B2, 0, bk * bn, et, "mmB2"),
                      local(A.TPosition.CO1, 0, bm * bn, dtypes.float32.attr, "mmCO1"))
        return self._cube

    def _bias_buffers(self, bn: int, b1_end: int):
        """The bias row in L1 (C1, after B1) and in BiasTable (C2): ``bn`` rounded up to whole 64 B units of the
        bias's type."""
        if self._bias_rows is not None:
            return self._bias_rows
        t = current()
        et = self.bias.dtype
        n = -(-bn // (64 // et.sizeof())) * (64 // et.sizeof())
        if n * 4 > 1024:
            raise KernelError("adv.Matmul.set_bias", f"a bias row of base_n {bn} needs {n * 4} B of BiasTable, more "
                                                     "than its 1 KB", location=t.loc)
        c1 = t.preamble(A.LocalTensorOp(A.TPosition.C1, -(-b1_end // 32) * 32, n, et.attr))
        c2 = t.preamble(A.LocalTensorOp(A.TPosition.C2, 0, n, dtypes.float32.attr))
        c1.name_hint, c2.name_hint = "mmBiasC1", "mmBiasC2"
        self._bias_rows = (c1, c2, n)
        return self._bias_rows

    @staticmethod
    def _either(cond, then, otherwise) -> None:
        """``then()``'s ops under ``if (cond)``, ``otherwise()``'s under its ``else``."""
        t = current()
        blocks = Block(), Block()
        t.add(scf.IfOp(to_i1(cond), [], Region(blocks[0]), Region(blocks[1])))
        for block, fn in zip(blocks, (then, otherwise)):
            with t.at_end(block):
                fn()
                t.add(scf.YieldOp())

    def _when_first(self, first, fn) -> None:
        """``fn()``'s ops under ``if (first)``."""
        t = current()
        body = Block()
        t.add(scf.IfOp(to_i1(first), [], Region(body)))
        with t.at_end(body):
            fn()
            t.add(scf.YieldOp())

    def _flag(self, ev: str, set_: bool = True, wait: bool = True) -> None:
        t = current()
        e = A.HardEvent(ev)
        if set_:
            t.add(A.SetFlagOp(e, t.index(EVENT)))
        if wait:
            t.add(A.WaitFlagOp(e, t.index(EVENT)))

    def _compute_block(self, mi, nj, mv, nv, geom, dst: GlobalTensor, dst_stride) -> None:
        """One C block on the AIC, written to ``dst`` (rows ``dst_stride`` elements apart)."""
        t = current()
        bm, bn, bk, _, _, sk, _, _, _ = geom
        if self.a is None or self.b is None:
            raise KernelError("adv.Matmul", "set_tensor_a and set_tensor_b come before the matmul runs",
                              location=t.loc)
        a1, b1, a2, b2, co1 = self._buffers(bm, bn, bk)
        es = self.types[0].dtype.sizeof()
        bias = self._bias_buffers(bn, -(-bm * bk * es // 512) * 512 + bk * bn * es) if self._bias_on_cube and \
            self.bias is not None else None
        tl = self.tiling
        ka, n_org = tl.k_a, tl.n
        frac = 16 * 16
        kb = _ceil(sk, bk)
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = "kk"
        t.add(scf.ForOp(t.index(0), _idx(kb), t.index(1), [], body))
        with t.at_end(body):
            kk = Scalar(body.args[0], "int")
            kv = _min(bk, sk - kk * bk)
            k1v = (kv + 15) // 16
            self._flag("MTE1_MTE2", set_=False)
            a_src = t.val(A.SubviewOp(self.a.value, _idx(mi * bm * ka + kk * bk)))
            b_src = t.val(A.SubviewOp(self.b.value, _idx(kk * bk * n_org + nj * bn)))
            one, zero = t.index(1), t.index(0)
            t.add(DataCopyNd2NzOp(a1, a_src, one, _idx(mv), _idx(kv), zero, _idx(ka), t.index(bm), one, zero))
            t.add(DataCopyNd2NzOp(b1, b_src, one, _idx(kv), _idx(nv), zero, _idx(n_org), t.index(bk), one, zero))
            if bias is not None:  # the block's bias columns into the L1 row, zeroed first
                c1, c2, nb = bias
                bias_src = t.val(A.SubviewOp(self.bias.value, _idx(nj * bn)))

                def copy_bias():
                    t.add(A.InitConstValueOp(c1, one, t.index(nb * self.bias.dtype.sizeof() // 32), zero,
                                             t.const(0, self.bias.dtype.attr)))
                    t.add(A.PipeBarrierOp(A.PipeKind.PIPE_MTE2))
                    t.add(DataCopyNd2NzOp(c1, bias_src, one, one, _idx(nv), zero, _idx(nv), one, one, zero))

                self._when_first(kk == 0, copy_bias)
            self._flag("MTE2_MTE1")
            self._flag("M_MTE1", set_=False)
            m1v, n1v = (mv + 15) // 16, (nv + 15) // 16
            lb = Block(arg_types=[IndexType()])
            lb.args[0].name_hint = "j"
            t.add(scf.ForOp(t.index(0), _idx(k1v), t.index(1), [], lb))
            with t.at_end(lb):
                j = Scalar(lb.args[0], "int")
                da = t.val(A.SubviewOp(a2, _idx(j * frac)))
                t.add(LoadDataOp(da, a1, _idx(j * (bm // 16)), _idx(m1v), one, zero, _idx(k1v - 1), False))
                db = t.val(A.SubviewOp(b2, _idx(j * n1v * frac)))
                t.add(LoadDataOp(db, b1, _idx(j), _idx(n1v), t.index(bk // 16), zero, zero, True))
                t.add(scf.YieldOp())
            if bias is not None:  # L1 -> BiasTable, ordered before the Mmad by MTE1_M
                units = (nv * self.bias.dtype.sizeof() + 63) // 64
                self._when_first(kk == 0, lambda: t.add(A.DataCopyL1ToBtOp(c2, c1, one, _idx(units), zero, zero)))
            self._flag("MTE1_MTE2", wait=False)
            self._flag("MTE1_M")
            # L0C passes to FixPipe and back by its unit flags (UnitFlag.md): the block's last Mmad 3, the others 2

            def mmads(unit_flag: int) -> None:
                if bias is None:
                    t.add(MmadOp(co1, a2, b2, _idx(mv), _idx(nv), _idx(kv), to_i1(kk == 0), unit_flag=unit_flag))
                    return
                self._either(kk == 0, *(lambda b=with_bias: t.add(  # the first Mmad starts from BiasTable
                    MmadOp(co1, a2, b2, _idx(mv), _idx(nv), _idx(kv), to_i1(False), c2 if b else None,
                           unit_flag=unit_flag)) for with_bias in (True, False)))

            if isinstance(kb, int) and kb == 1:
                mmads(3)
            else:
                self._either(kk == kb - 1, lambda: mmads(3), lambda: mmads(2))
            self._flag("M_MTE1", wait=False)
            t.add(scf.YieldOp())
        quant = QuantMode.NoQuant if dst.dtype.ir == "f32" else QuantMode.F322F16
        t.add(FixpipeOp(dst.value, co1, _idx(nv), _idx(mv), _idx((mv + 15) // 16 * 16), _idx(dst_stride), quant,
                        unit_flag=3))

    def _workspace(self, geom) -> GlobalTensor:
        """The f32 view of the GM workspace the AIC hands blocks to the AIV through, and its slots."""
        t = current()
        if self.workspace is None:
            raise KernelError("adv.Matmul.get_tensor_c", "a local C needs the workspace of register_matmul",
                              location=t.loc)
        if self._ws is None:
            ws = self.workspace
            n = ws.size * ws.dtype.sizeof() // 4
            v = t.preamble(A.GlobalTensorOp(ws.arg, n, dtypes.float32.attr))
            v.name_hint = "mmWorkspace"
            self._ws = GlobalTensor(v, dtypes.float32)
            bm, bn = geom[0], geom[1]
            tl = self.tiling
            per = _ceil(static_int(tl.single_core_m, "adv.Matmul", "single_core_m"), bm) * \
                _ceil(static_int(tl.single_core_n, "adv.Matmul", "single_core_n"), bn) * bm * bn
            need = per * 2 * t.launch["block_dim"] * 4
            if need > ws.size * ws.dtype.sizeof():
                raise KernelError("adv.Matmul.get_tensor_c", f"the workspace holds {ws.size * ws.dtype.sizeof()} B, "
                                                             f"the blocks handed to the AIVs need {need} B",
                                  location=t.loc)
            self._per = per
        return self._ws

    def _slot(self, count, geom):
        bm, bn = geom[0], geom[1]
        ws = self._workspace(geom)
        off = get_block_idx() * self._per + count * (bm * bn)
        return GlobalTensor(current().val(A.SubviewOp(ws.value, _idx(off))), ws.dtype)

    def _block_loop(self, geom, body_fn, name: str = "count") -> None:
        t = current()
        mb, nb = geom[6], geom[7]
        cube = t.mode == "aic"
        if cube:  # the L1 and L0 buffers start free: the first waits of the K loop find their flags set
            self._flag("MTE1_MTE2", wait=False)
            self._flag("M_MTE1", wait=False)
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = name
        t.add(scf.ForOp(t.index(0), _idx(mb * nb), t.index(1), [], body))
        with t.at_end(body):
            body_fn(Scalar(body.args[0], "int"))
            t.add(scf.YieldOp())
        if cube:
            self._flag("MTE1_MTE2", set_=False)
            self._flag("M_MTE1", set_=False)

    # -- running -----------------------------------------------------------------------------------
    def iterate_all(self, tensor, en_atomic=0, sync=True, en_sequential_write=None, wait_iterate_all=None,
                    fake_msg=None) -> None:
        """``IterateAll(c)``: every block of this core's C into ``tensor`` (GM)."""
        t = current()
        if not isinstance(tensor, GlobalTensor):
            raise unsupported("adv.Matmul.iterate_all into a local tensor")
        if en_atomic:
            raise unsupported("adv.Matmul.iterate_all(en_atomic)")
        geom = self._geometry("iterate_all")
        if t.mode == "aiv":
            if self.bias is not None:
                raise unsupported("adv.Matmul.iterate_all with a bias in a MIX kernel", "use iterate/get_tensor_c")
            handoff.need_result(t)
            return
        handoff.produced(t)
        bm, bn = geom[0], geom[1]
        n_org = self.tiling.n

        def block(count):
            mi, nj, mv, nv = self._block(count, geom)
            dst = GlobalTensor(t.val(A.SubviewOp(tensor.value, _idx(mi * bm * n_org + nj * bn))), tensor.dtype)
            self._compute_block(mi, nj, mv, nv, geom, dst, n_org)

        self._block_loop(geom, block)

    def iterate(self, en_partial_sum=False, sync=True, local_c_matrix=None):
        """``while (mm.Iterate()) {...}`` as ``with matmul.iterate() as count:`` (a loop over the blocks)."""
        if en_partial_sum or local_c_matrix is not None:
            raise unsupported("adv.Matmul.iterate(en_partial_sum / local_c_matrix)")
        return _Iterate(self)

    def get_tensor_c(self, tensor=None, en_atomic=0, en_sequential_write=False, sync=True, optional_tensor=None):
        """``GetTensorC``: the current block (inside ``with matmul.iterate()``) into ``tensor``."""
        t = current()
        if self._loop is None:
            raise KernelError("adv.Matmul.get_tensor_c", "call it inside `with matmul.iterate() as count:`",
                              location=t.loc)
        if tensor is None or en_atomic:
            raise unsupported("adv.Matmul.get_tensor_c without a tensor or with en_atomic")
        geom = self._geometry("get_tensor_c")
        count = self._loop
        mi, nj, mv, nv = self._block(count, geom)
        bm, bn = geom[0], geom[1]
        if isinstance(tensor, GlobalTensor):
            if t.mode == "aiv":
                handoff.need_result(t)
                return
            handoff.produced(t)
            n_org = self.tiling.n
            dst = GlobalTensor(t.val(A.SubviewOp(tensor.value, _idx(mi * bm * n_org + nj * bn))), tensor.dtype)
            self._compute_block(mi, nj, mv, nv, geom, dst, n_org)
            return
        if not isinstance(tensor, LocalTensor):
            raise KernelError("adv.Matmul.get_tensor_c", "expects a tensor", location=t.loc)
        if not en_sequential_write:
            raise unsupported("adv.Matmul.get_tensor_c(local, en_sequential_write=False)",
                              "only the sequential (base_m x base_n row-major) layout")
        if t.mode == "aic":
            if t.block_idx is None:
                raise unsupported("adv.Matmul.get_tensor_c into a local tensor in an AIC-only kernel")
            handoff.produced(t)
            self._compute_block(mi, nj, mv, nv, geom, self._slot(count, geom), bn)
            return
        handoff.need_result(t)
        self._copy_to_ub(tensor, count, nj, mv, geom)

    def _copy_to_ub(self, local: LocalTensor, count, nj, mv, geom) -> None:
        """The AIV's half of ``get_tensor_c``: the block from the workspace into UB, plus the bias."""
        t = current()
        bm, bn = geom[0], geom[1]
        if local.dtype.ir != "f32":
            raise unsupported("adv.Matmul.get_tensor_c into a non-float32 local tensor")
        slot = self._slot(count, geom)
        ev = t.index(UB_EVENT)
        t.add(A.SetFlagOp(A.HardEvent.V_MTE2, ev))
        t.add(A.WaitFlagOp(A.HardEvent.V_MTE2, ev))
        emit("adv.Matmul.get_tensor_c", A.DataCopyOp(local.value, slot.value, t.index(bm * bn)))
        if self.bias is None:
            t.add(A.SetFlagOp(A.HardEvent.MTE2_V, ev))
            t.add(A.WaitFlagOp(A.HardEvent.MTE2_V, ev))
            return
        if self._bias_buf is None:
            raise KernelError("adv.Matmul.set_bias", "register the Matmul with its TPipe before set_bias",
                              location=t.loc)
        bias_ub = t.val(A.TBufGetOp(self._bias_buf.value, dtypes.float32.attr))
        src = t.val(A.SubviewOp(self.bias.value, _idx(nj * bn)))
        nvb = _min(bn, geom[4] - nj * bn) * 4
        emit("adv.Matmul.set_bias", A.DataCopyPadOp(bias_ub, src, t.index(1), _idx(nvb), t.index(0), t.index(0)))
        t.add(A.SetFlagOp(A.HardEvent.MTE2_V, ev))
        t.add(A.WaitFlagOp(A.HardEvent.MTE2_V, ev))
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = "row"
        t.add(scf.ForOp(t.index(0), _idx(mv), t.index(1), [], body))
        with t.at_end(body):
            row = t.val(A.SubviewOp(local.value, t.val(arith.MuliOp(body.args[0], t.index(bn)))))
            t.add(A.AddOp(row, row, bias_ub, t.index(bn)))
            t.add(scf.YieldOp())
        t.add(A.PipeBarrierOp(A.PipeKind.PIPE_V))


def _ceil(a, b: int):
    if isinstance(a, Scalar):
        return (a + (b - 1)) // b
    return -(-a // b)


class _Iterate:
    """The loop of ``with matmul.iterate() as count:``."""

    def __init__(self, mm: Matmul):
        self.mm = mm

    def trace_with(self, interp, node, name, env) -> None:
        mm = self.mm
        geom = mm._geometry("iterate")
        if mm._loop is not None:
            raise KernelError("adv.Matmul.iterate", "nested iterate loops", location=current().loc)

        def body(count):
            mm._loop = count
            try:
                interp.loop_body(node, name, count, env)
            finally:
                mm._loop = None

        mm._block_loop(geom, body, name or "count")


def register_matmul(pipe, *args) -> None:
    """``REGIST_MATMUL_OBJ(&pipe, workspace, mm, &tiling)``: ``(pipe, workspace, matmul, tiling)`` or the
    older ``(pipe, matmul, tiling)`` after ``asc.set_sys_workspace(workspace)``."""
    t = current()
    if args and isinstance(args[0], Matmul):
        workspace = t.cache.get("sys_workspace")
        matmul, tiling = args[0], (args[1] if len(args) > 1 else None)
    elif len(args) >= 2 and isinstance(args[1], Matmul):
        workspace, matmul, tiling = args[0], args[1], (args[2] if len(args) > 2 else None)
    else:
        raise KernelError("adv.register_matmul", "expects (pipe, workspace, matmul, tiling) or (pipe, matmul, tiling)",
                          location=t.loc)
    if workspace is not None and not isinstance(workspace, GlobalAddress):
        raise KernelError("adv.register_matmul", "the workspace must be a GlobalAddress argument", location=t.loc)
    matmul.pipe = pipe
    matmul.workspace = workspace
    if tiling is not None:
        matmul.init(tiling)
