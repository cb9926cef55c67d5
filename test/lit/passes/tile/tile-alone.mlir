// XFAIL: *
// BUG: since host-to-gm was split out of tile-elementwise, running tile-elementwise on its
// own leaves a module that does not verify: the host still calls the kernel with tensor
// operands and results while the kernel now takes GM memrefs ("incorrect number of operands
// for callee"), so `pyasc-opt -p asctensor-fuse,tile-elementwise` dies with a traceback.
// Every pass should leave valid IR (DESIGN.md §2: every level verifiable on its own).
// RUN: pyasc-opt %s -p asctensor-fuse,tile-elementwise 2>&1 | filecheck %s

func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = math.exp %x : tensor<1024xf32>
  func.return %0 : tensor<1024xf32>
}

// CHECK-NOT: Traceback
// CHECK:     func.func @f_k0(%x: memref<1024xf32>, %out0: memref<1024xf32>) attributes {asctile.kernel
