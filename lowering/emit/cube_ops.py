"""Emitter entries for the ``ascendc`` cube ops (registered into the kernel table).

``DataCopy`` with ``Nd2NzParams``, ``LoadData`` with ``LoadData2DParams``, ``Mmad`` with ``MmadParams``
and ``Fixpipe`` with ``FixpipeParamsV220``; brace-initialised fields are cast to their declared
widths unless they are literals.
"""

from pyasc.dialects import ascendc as A

from .common import scalar_ctype
from .kernel import register


def _nd2nz(p, op: A.DataCopyNd2NzOp) -> str:
    fields = [p.expr_as(v, "uint16_t") for v in (op.nd_num, op.n_value, op.d_value, op.src_nd_matrix_stride,
                                                 op.src_d_value, op.dst_nz_c0_stride, op.dst_nz_n_stride,
                                                 op.dst_nz_matrix_stride)]
    return f"AscendC::DataCopy({p.expr(op.dst)}, {p.expr(op.src)}, AscendC::Nd2NzParams{{{', '.join(fields)}}});"


def _load_data(p, op: A.LoadDataOp) -> str:
    fields = [p.expr_as(op.start_index, "uint16_t"), p.expr_as(op.repeat_times, "uint8_t"),
              p.expr_as(op.src_stride, "uint16_t"), p.expr_as(op.sid, "uint8_t"), p.expr_as(op.dst_gap, "uint16_t"),
              "true" if op.if_transpose is not None else "false", "0"]
    return (f"AscendC::LoadData({p.expr(op.dst)}, {p.expr(op.src)}, "
            f"AscendC::LoadData2DParams{{{', '.join(fields)}}});")


def _mmad(p, op: A.MmadOp) -> str:
    fields = [p.expr_as(op.m, "uint16_t"), p.expr_as(op.n, "uint16_t"), p.expr_as(op.k, "uint16_t"), "0", "false",
              p.expr_as(op.init, "bool")]
    return (f"AscendC::Mmad({p.expr(op.dst)}, {p.expr(op.fm)}, {p.expr(op.filter)}, "
            f"AscendC::MmadParams{{{', '.join(fields)}}});")


def _fixpipe(p, op: A.FixpipeOp) -> str:
    fields = [p.expr_as(op.n_size, "uint16_t"), p.expr_as(op.m_size, "uint16_t"), p.expr_as(op.src_stride, "uint16_t"),
              p.expr_as(op.dst_stride, "uint32_t"), "true" if op.relu is not None else "false",
              f"QuantMode_t::{op.quant.data.value}", "0", "1", "0", "0", "0"]
    dt, st = scalar_ctype(op.dst.type.element_type), scalar_ctype(op.src.type.element_type)
    return (f"AscendC::Fixpipe<{dt}, {st}, AscendC::CFG_ROW_MAJOR>({p.expr(op.dst)}, {p.expr(op.src)}, "
            f"AscendC::FixpipeParamsV220{{{', '.join(fields)}}});")


register({
    A.DataCopyNd2NzOp: _nd2nz,
    A.LoadDataOp: _load_data,
    A.MmadOp: _mmad,
    A.FixpipeOp: _fixpipe,
})
