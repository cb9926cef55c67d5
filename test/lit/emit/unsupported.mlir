// RUN: not pyasc-opt %s -t ascendc 2>&1 | filecheck %s

builtin.module {
  func.func @k(%x: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 1 : i64} {
    %v = "test.op"() {asc.loc = "model.py:9"} : () -> f32
    func.return
  }
}

// CHECK: kernel @k: no Ascend C form for op 'test.op' (at model.py:9)
