// RUN: pyasc-opt %s --split-input-file --verify-diagnostics 2>&1 | filecheck %s

// the integer attributes of the pyasc dialects are verified as integers in their range, on the
// function's discardable attributes as on the ops' properties: one line each, no traceback
// CHECK-NOT: Traceback

func.func @k(%x: memref<64xf32>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 2.0 : f64} {
  func.return
}
// CHECK: `func.func @k` has asctile.buffers = 2.000000e+00 : f64; asctile.buffers (the copies of each queue of a kernel) must be an integer in 1..4

// -----

func.func @k(%x: memref<64xf32>) attributes {asctile.kernel, asctile.block_dim = 0 : i64} {
  func.return
}
// CHECK: `func.func @k` has asctile.block_dim = 0 : i64; asctile.block_dim (the cores a kernel runs on) must be an integer in 1..65535

// -----

func.func @k(%x: memref<64xf32>) attributes {asctile.kernel, asctile.block_dim = true} {
  func.return
}
// CHECK: `func.func @k` has asctile.block_dim = true; asctile.block_dim (the cores a kernel runs on) must be an integer in 1..65535

// -----

func.func @k(%x: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 4.5 : f32} {
  func.return
}
// CHECK: `func.func @k` has ascendc.block_dim = 4.500000e+00 : f32; ascendc.block_dim (the cores a kernel runs on) must be an integer in 1..65535

// -----

func.func @k(%x: memref<64xf32>) attributes {asctile.kernel = "mix", asctile.block_dim = 2 : i64, asctile.mix_credits = 99 : i64} {
  func.return
}
// CHECK: `func.func @k` has asctile.mix_credits = 99 : i64; asctile.mix_credits (the credits of a MIX kernel's channels) must be an integer in 1..15

// -----

func.func @k() {
  %ub = "ascbuf.alloc"() <{slots = 1 : i64, offset = 6.4e1 : f64}> : () -> memref<64x48xf16, #ascbuf.space<ub>>
  func.return
}
// CHECK: `ascbuf.alloc` has offset = 6.400000e+01 : f64: 6.400000e+01 : f64 should be of base attribute integer

// -----

func.func @k() {
  %ub = "ascbuf.alloc"() <{slots = 1.5 : f64}> : () -> memref<64x48xf16, #ascbuf.space<ub>>
  func.return
}
// CHECK: `ascbuf.alloc` has slots = 1.500000e+00 : f64: 1.500000e+00 : f64 should be of base attribute integer
