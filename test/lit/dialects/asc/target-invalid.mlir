// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

builtin.module attributes {asc.target = #asc.target<"ascend310p">} {
}
// CHECK: unknown target 'ascend310p'; known targets: ascend910b1, ascend910b2, ascend910b3, ascend910b4

// -----

builtin.module attributes {asc.target = #asc.target<"">} {
}
// CHECK: unknown target ''; known targets: ascend910b1, ascend910b2, ascend910b3, ascend910b4

// -----

builtin.module attributes {asc.target = #asc.target<"ascend910b3">} {
}
// CHECK-NOT: unknown target
// CHECK: builtin.module attributes {asc.target = #asc.target<"ascend910b3">}
