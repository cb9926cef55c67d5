"""IR generators for the simulator tests: the add kernel of ``test/fixtures/add_flags.mlir`` generalised
to any size, core count, tile and element type (static buffers, double buffering, explicit flags)."""

from __future__ import annotations

from pyasc.dialects.target import DEFAULT_TARGET

ESIZE = {"f16": 2, "f32": 4, "bf16": 2, "i32": 4, "i16": 2}


def add_flags_ir(n: int, cores: int, tile: int, dtype: str = "f32", *, drop=None,
                 event_id: str | None = None) -> str:
    """``z = x + y`` on ``n`` elements: tiles of ``tile`` split in contiguous ranges over ``cores``.

    ``drop`` removes the lines containing these texts (to break synchronisation in negative tests);
    ``event_id`` replaces the slot used as the MTE2_V event id by an expression of ``%slot``.
    """
    es = ESIZE[dtype]
    ntiles = -(-n // tile)
    per_core = -(-ntiles // cores)
    buf = 2 * tile * es
    T = dtype
    LT = f"!ascendc.local_tensor<{T}>"
    GT = f"!ascendc.global_tensor<{T}>"
    ev = "%slot"
    extra = ""
    if event_id is not None:
        extra = f"      %ev = {event_id}\n"
        ev = "%ev"
    text = f"""builtin.module attributes {{asc.target = #asc.target<"{DEFAULT_TARGET}">}} {{
  func.func @add_k0(%x: !ascendc.gm_addr, %y: !ascendc.gm_addr, %z: !ascendc.gm_addr) attributes {{ascendc.kernel, ascendc.block_dim = {cores} : i64}} {{
    ascendc.init_soc_state
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %tile = arith.constant {tile} : index
    %n = arith.constant {n} : index
    %ntiles = arith.constant {ntiles} : index
    %per_core = arith.constant {per_core} : index
    %bid = ascendc.get_block_idx : index
    %xg = ascendc.global_tensor %x size {n} : {GT}
    %yg = ascendc.global_tensor %y size {n} : {GT}
    %zg = ascendc.global_tensor %z size {n} : {GT}
    %xb = ascendc.local_tensor VECIN address 0 size {2 * tile} : {LT}
    %yb = ascendc.local_tensor VECIN address {buf} size {2 * tile} : {LT}
    %zb = ascendc.local_tensor VECOUT address {2 * buf} size {2 * tile} : {LT}
    %lo = arith.muli %bid, %per_core : index
    %hi0 = arith.addi %lo, %per_core : index
    %hi = arith.minui %hi0, %ntiles : index
    ascendc.set_flag V_MTE2, %c0
    ascendc.set_flag V_MTE2, %c1
    ascendc.set_flag MTE3_V, %c0
    ascendc.set_flag MTE3_V, %c1
    scf.for %t = %lo to %hi step %c1 {{
      %rel = arith.subi %t, %lo : index
      %slot = arith.remui %rel, %c2 : index
{extra}      %soff = arith.muli %slot, %tile : index
      %xs = ascendc.subview %xb[%soff] : {LT}
      %ys = ascendc.subview %yb[%soff] : {LT}
      %zs = ascendc.subview %zb[%soff] : {LT}
      %off = arith.muli %t, %tile : index
      %rest = arith.subi %n, %off : index
      %cnt = arith.minui %rest, %tile : index
      %xgs = ascendc.subview %xg[%off] : {GT}
      %ygs = ascendc.subview %yg[%off] : {GT}
      %zgs = ascendc.subview %zg[%off] : {GT}
      ascendc.wait_flag V_MTE2, %slot
      ascendc.data_copy %xs, %xgs, %cnt : {LT}, {GT}
      ascendc.data_copy %ys, %ygs, %cnt : {LT}, {GT}
      ascendc.set_flag MTE2_V, {ev}
      ascendc.wait_flag MTE2_V, {ev}
      ascendc.wait_flag MTE3_V, %slot
      ascendc.add %zs, %xs, %ys, %cnt : {LT}
      ascendc.set_flag V_MTE2, %slot
      ascendc.set_flag V_MTE3, %slot
      ascendc.wait_flag V_MTE3, %slot
      ascendc.data_copy %zgs, %zs, %cnt : {GT}, {LT}
      ascendc.set_flag MTE3_V, %slot
    }}
    ascendc.wait_flag V_MTE2, %c0
    ascendc.wait_flag V_MTE2, %c1
    ascendc.wait_flag MTE3_V, %c0
    ascendc.wait_flag MTE3_V, %c1
    ascendc.pipe_barrier PIPE_ALL
    func.return
  }}
  func.func @add(%x: memref<{n}x{T}>, %y: memref<{n}x{T}>, %z: memref<{n}x{T}>) {{
    ascendc.launch @add_k0<<<{cores}>>>(%x, %y, %z) : memref<{n}x{T}>, memref<{n}x{T}>, memref<{n}x{T}>
    func.return
  }}
}}
"""
    for d in [drop] if isinstance(drop, str) else (drop or []):
        lines = text.splitlines(keepends=True)
        idx = next(i for i, line in enumerate(lines) if d in line)
        text = "".join(lines[:idx] + lines[idx + 1:])
    return text


def kernel_ir(body: str, gm=(("x", "f32", 1024), ("z", "f32", 1024)), cores: int = 1, host_body: str | None = None) -> str:
    """A one-kernel module: kernel ``@k`` over the GM buffers ``gm`` = (name, type, elements), with
    ``%<name>g`` global tensors, index constants ``%c0``..``%c8``, ``%c32``, ``%c64``, ``%c128``, ``%c256``
    and ``%bid``; host ``@host`` launches it on ``cores`` cores with one memref per buffer."""
    consts = "\n".join(f"    %c{i} = arith.constant {i} : index" for i in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 32, 64, 128, 256))
    kargs = ", ".join(f"%{n}: !ascendc.gm_addr" for n, _, _ in gm)
    gts = "\n".join(f"    %{n}g = ascendc.global_tensor %{n} size {s} : !ascendc.global_tensor<{t}>" for n, t, s in gm)
    hargs = ", ".join(f"%{n}: memref<{s}x{t}>" for n, t, s in gm)
    names = ", ".join(f"%{n}" for n, _, _ in gm)
    types = ", ".join(f"memref<{s}x{t}>" for _, t, s in gm)
    if host_body is None:
        host_body = f"    ascendc.launch @k<<<{cores}>>>({names}) : {types}\n"
    # a kernel without a TPipe starts with InitSocState and ends with PipeBarrier<PIPE_ALL> (static tensors)
    static = "ascendc.tpipe" not in body
    start = "    ascendc.init_soc_state\n" if static else ""
    end = "    ascendc.pipe_barrier PIPE_ALL\n" if static else ""
    return f"""builtin.module attributes {{asc.target = #asc.target<"{DEFAULT_TARGET}">}} {{
  func.func @k({kargs}) attributes {{ascendc.kernel, ascendc.block_dim = {cores} : i64}} {{
{start}{consts}
    %bid = ascendc.get_block_idx : index
{gts}
{body}
{end}    func.return
  }}
  func.func @host({hargs}) {{
{host_body}    func.return
  }}
}}
"""
