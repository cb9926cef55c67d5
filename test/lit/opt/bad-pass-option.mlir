// RUN: not pyasc-opt %s -p 'compile{sync_style=fences}' 2>&1 | filecheck %s --check-prefix=STYLE
// RUN: not pyasc-opt %s -p 'compile{buffers=9}' 2>&1 | filecheck %s --check-prefix=BUF
// RUN: not pyasc-opt %s -p 'compile{target="ascend310p"}' 2>&1 | filecheck %s --check-prefix=TARGET
// RUN: not pyasc-opt %s -p 'insert-sync{sync_style=none}' 2>&1 | filecheck %s --check-prefix=SYNC

func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = math.exp %x : tensor<64xf32>
  func.return %0 : tensor<64xf32>
}

// STYLE-NOT:  Traceback
// STYLE:      pyasc-opt: error: option 'sync_style' must be one of queue, flags; got 'fences'
// BUF-NOT:    Traceback
// BUF:        pyasc-opt: error: option 'buffers' must be an integer in 1..4; got 9
// TARGET-NOT: Traceback
// TARGET:     pyasc-opt: error: unknown target 'ascend310p'; option 'target' must be one of ascend910b1, ascend910b2, ascend910b3, ascend910b4; got 'ascend310p'
// SYNC-NOT:   Traceback
// SYNC:       pyasc-opt: error: option 'sync_style' must be one of queue, flags; got 'none'

// RUN: not pyasc-opt %s -p "to-tile{cores=" 2>&1 | filecheck %s --check-prefix=SPEC
// SPEC-NOT:   Traceback
// SPEC:       pyasc-opt: error: malformed pass pipeline: {{.*}}pass-pipeline:1:15 to-tile{cores= ^ Unknown argument value
