// RUN: pyasc-opt %s -p to-tile | filecheck %s --check-prefix=TILE
// RUN: pyasc-opt %s -p to-tile,to-buf | filecheck %s --check-prefix=BUF
// RUN: pyasc-opt %s -p to-tile,to-buf,to-ascendc | filecheck %s --check-prefix=ASC
// RUN: pyasc-opt %s -p compile | filecheck %s --check-prefix=ASC
// every level can be printed and parsed back, then continued from
// RUN: pyasc-opt %s -p to-tile | pyasc-opt -p to-buf | pyasc-opt -p to-ascendc | filecheck %s --check-prefix=ASC

// the traced quickstart program (x * y + 1.5, exact gelu) on f16
builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @quickstart(%x: tensor<4096x1024xf16>, %y: tensor<4096x1024xf16>) -> tensor<4096x1024xf16> {
    %0 = arith.mulf %x, %y {asc.loc = "quickstart.py:12"} : tensor<4096x1024xf16>
    %1 = asctensor.full 1.5 : f16 -> tensor<4096x1024xf16>
    %2 = arith.addf %0, %1 : tensor<4096x1024xf16>
    %3 = asctensor.gelu %2 approximate none : tensor<4096x1024xf16>
    func.return %3 : tensor<4096x1024xf16>
  }
}

// TILE:       builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
// TILE-NEXT:    func.func @quickstart_k0(%x: memref<4096x1024xf16>, %y: memref<4096x1024xf16>, %out0: memref<4096x1024xf16>) attributes {asctile.kernel, asctile.block_dim = 48 : i64, asctile.buffers = 2 : i64} {
// TILE:           %x_1 = asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(0, 1) dense : memref<4096x1024xf16> -> tensor<1x5152xf16>
// TILE:           arith.mulf %x_1, %y_1 {asc.loc = "quickstart.py:12"} : tensor<1x5152xf16>
// TILE:           arith.extf %{{.*}} : tensor<1x5152xf16> to tensor<1x5152xf32>
// TILE:           arith.truncf %{{.*}} : tensor<1x5152xf32> to tensor<1x5152xf16>
// TILE-NEXT:      asctile.store
// TILE:         func.func @quickstart(%x: memref<4096x1024xf16>, %y: memref<4096x1024xf16>, %out0: memref<4096x1024xf16>) {
// TILE-NEXT:      func.call @quickstart_k0(%x, %y, %out0) {asc.loc = "quickstart.py:12"}
// TILE-NOT:     asctensor.
// TILE-NOT:     ascbuf.

// BUF-LABEL:  func.func @quickstart_k0(
// BUF-NEXT:     %x_buf = ascbuf.alloc slots 2 offset 0 : memref<1x5152xf16, #ascbuf.space<ub>>
// BUF:          ascbuf.vbinary mul %{{.*}} {asc.loc = "quickstart.py:12"} : memref<1x5152xf16, #ascbuf.space<ub>>
// BUF:          ascbuf.vcast %{{.*}}, CAST_NONE, %{{.*}} : memref<1x5152xf32, #ascbuf.space<ub>>, memref<1x5152xf16, #ascbuf.space<ub>>
// BUF-NOT:      asctile.load
// BUF-NOT:      ascbuf.set_flag
// BUF-NOT:      ascendc.

// ASC-LABEL:  func.func @quickstart_k0(%x: !ascendc.gm_addr, %y: !ascendc.gm_addr, %out0: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 48 : i64, ascendc.kernel_type = "aiv_only"} {
// ASC:          %pipe = ascendc.tpipe : !ascendc.tpipe
// ASC:          %xQue = ascendc.tque : !ascendc.tque<VECIN, 1>
// ASC:          ascendc.data_copy %xLocal,
// ASC:          ascendc.cast %{{.*}}, %{{.*}}, CAST_NONE, %{{.*}} : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f16>
// ASC:          ascendc.exp
// ASC:          ascendc.cast %{{.*}}, %{{.*}}, CAST_NONE, %{{.*}} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f32>
// ASC-LABEL:  func.func @quickstart(
// ASC-NEXT:     ascendc.launch @quickstart_k0<<<48>>> (%x, %y, %out0)
// ASC-NOT:      asctile.
// ASC-NOT:      ascbuf.
