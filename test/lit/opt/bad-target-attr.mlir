// RUN: not pyasc-opt %s 2>&1 | filecheck %s

builtin.module attributes {asc.target = #asc.target<"ascend310p">} {
}

// CHECK-NOT: Traceback
// CHECK:     unknown target 'ascend310p'; known targets: ascend910b1, ascend910b2, ascend910b3, ascend910b4
