// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @k() {
  asctile.core_section aic {
    asctile.cross_signal free
  }
  func.return
}
// CHECK: asctile.cross_signal free: belongs in an AIV section, found in an AIC section

// -----

func.func @k() {
  asctile.cross_wait ready
  func.return
}
// CHECK: asctile.cross_wait ready: belongs in an AIV section, found in no core section

// -----

func.func @k() {
  asctile.core_section aic {
    %s = asctile.sub_block_idx : index
  }
  func.return
}
// CHECK: asctile.sub_block_idx: only an AIV section has a sub-block index

// -----

func.func @k() {
  scf.execute_region {
    asctile.core_section aiv {
      %s = asctile.sub_block_idx : index
    }
    scf.yield
  }
  func.return
}
// CHECK: asctile.core_section: a core section sits directly in a kernel function, not in scf.execute_region

// -----

func.func @r(%row: tensor<2x64xf16>) -> tensor<32x64xf16> {
  %t = asctile.repeat_rows %row : tensor<2x64xf16> -> tensor<32x64xf16>
  func.return %t : tensor<32x64xf16>
}
// CHECK: asctile.repeat_rows: repeats a 1 x P tile into an R x P tile of its element type, got tensor<2x64xf16> -> tensor<32x64xf16>
