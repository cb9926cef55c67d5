// RUN: PYASC_ROUNDTRIP
// RUN: PYASC_CUSTOM_ROUNDTRIP

func.func @k(%ws: memref<64x64xf16>) attributes {asctile.kernel = "mix"} {
  asctile.core_section aic {
    asctile.cross_wait free
    asctile.cross_signal ready
  }
  asctile.core_section aiv {
    %s = asctile.sub_block_idx : index
    asctile.cross_wait ready
    asctile.cross_signal free
  }
  func.return
}
// CHECK:      asctile.core_section aic {
// CHECK-NEXT:   asctile.cross_wait free
// CHECK-NEXT:   asctile.cross_signal ready
// CHECK-NEXT: }
// CHECK-NEXT: asctile.core_section aiv {
// CHECK-NEXT:   %s = asctile.sub_block_idx : index
// CHECK-NEXT:   asctile.cross_wait ready
// CHECK-NEXT:   asctile.cross_signal free
// CHECK-NEXT: }

// -----

func.func @r(%row: tensor<1x64xf16>) -> tensor<32x64xf16> {
  %t = asctile.repeat_rows %row : tensor<1x64xf16> -> tensor<32x64xf16>
  func.return %t : tensor<32x64xf16>
}
// CHECK: %t = asctile.repeat_rows %row : tensor<1x64xf16> -> tensor<32x64xf16>
