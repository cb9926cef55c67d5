// RUN: PYASC_ROUNDTRIP
// RUN: PYASC_CUSTOM_ROUNDTRIP
// RUN: pyasc-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

func.func @k(%x: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : index
  ascendc.set_flag MTE2_V, %c0
  ascendc.wait_flag MTE2_V, %c0
  ascendc.set_flag V_MTE3, %c7
  ascendc.wait_flag V_MTE3, %c7
  ascendc.set_flag MTE3_V, %c0
  ascendc.wait_flag V_MTE2, %c0
  ascendc.set_flag S_V, %c0
  ascendc.wait_flag FIX_M, %c0
  ascendc.pipe_barrier PIPE_V
  ascendc.pipe_barrier PIPE_MTE2
  ascendc.pipe_barrier PIPE_MTE3
  ascendc.pipe_barrier PIPE_ALL
  func.return
}
func.func @wide(%x: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 65535 : i64} {
  func.return
}
func.func @host(%a: memref<64xf32>, %b: memref<64xf32>) {
  ascendc.launch @k<<<2>>>(%a) : memref<64xf32>
  ascendc.launch @wide<<<65535>>>(%b) : memref<64xf32>
  func.return
}

// CHECK-LABEL: func.func @k(
// CHECK:         ascendc.set_flag MTE2_V, %c0
// CHECK-NEXT:    ascendc.wait_flag MTE2_V, %c0
// CHECK-NEXT:    ascendc.set_flag V_MTE3, %c7
// CHECK-NEXT:    ascendc.wait_flag V_MTE3, %c7
// CHECK-NEXT:    ascendc.set_flag MTE3_V, %c0
// CHECK-NEXT:    ascendc.wait_flag V_MTE2, %c0
// CHECK-NEXT:    ascendc.set_flag S_V, %c0
// CHECK-NEXT:    ascendc.wait_flag FIX_M, %c0
// CHECK-NEXT:    ascendc.pipe_barrier PIPE_V
// CHECK-NEXT:    ascendc.pipe_barrier PIPE_MTE2
// CHECK-NEXT:    ascendc.pipe_barrier PIPE_MTE3
// CHECK-NEXT:    ascendc.pipe_barrier PIPE_ALL
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func @host(%a: memref<64xf32>, %b: memref<64xf32>) {
// CHECK-NEXT:    ascendc.launch @k<<<2>>> (%a) : memref<64xf32>
// CHECK-NEXT:    ascendc.launch @wide<<<65535>>> (%b) : memref<64xf32>

// GENERIC: "ascendc.set_flag"(%c0) <{event = #ascendc<event MTE2_V>}> : (index) -> ()
// GENERIC: "ascendc.pipe_barrier"() <{pipe = #ascendc<pipe PIPE_V>}> : () -> ()
// GENERIC: "ascendc.launch"(%a) <{kernel = @k, block_dim = 2 : i64}> : (memref<64xf32>) -> ()
