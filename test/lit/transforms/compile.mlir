// RUN: pyasc-opt %s -p 'compile{cores=2 tile_size=1024}' | filecheck %s
// RUN: pyasc-opt %s -p 'compile{cores=2 tile_size=1024}' -t ascendc | filecheck %s --check-prefix=CPP

// every stage, as pyasc.jit runs them: the user-defined op is inlined, x + y and the op's
// decomposition become one tiled vector kernel, launched from the host on GM buffers
builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func private @square_0(%x: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {pyasc.custom_op = "square"} {
    %0 = arith.mulf %x, %x : tensor<64x64xf32>
    func.return %0 : tensor<64x64xf32>
  }
  func.func @f(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
    %0 = arith.addf %a, %b : tensor<64x64xf32>
    %1 = func.call @square_0(%0) {pyasc.custom_op = "square"} : (tensor<64x64xf32>) -> tensor<64x64xf32>
    func.return %1 : tensor<64x64xf32>
  }
}

// CHECK:      func.func @f_k0(%a: !ascendc.gm_addr, %b: !ascendc.gm_addr, %out0: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 2 : i64, ascendc.kernel_type = "aiv_only"} {
// CHECK:        ascendc.add
// CHECK:        ascendc.mul
// CHECK:      func.func @f(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %out0: memref<64x64xf32>) {
// CHECK-NEXT:   ascendc.launch @f_k0<<<2>>> (%a, %b, %out0)
// CHECK-NOT:  @square_0
// CHECK-NOT:  asctensor.
// CHECK-NOT:  asctile.
// CHECK-NOT:  ascbuf.

// CPP:        extern "C" __global__ __aicore__ void f_k0(GM_ADDR a, GM_ADDR b, GM_ADDR out0)
// CPP:          AscendC::Add(
// CPP:          AscendC::Mul(
