// RUN: pyasc-opt %s --split-input-file --parsing-diagnostics | filecheck %s

builtin.module attributes {asc.target = #asc.target<ascend910b2>} {
}
// CHECK: target-syntax.mlir:3:53
// CHECK: string literal expected

// -----

builtin.module attributes {asc.target = #asc.target<"ascend910b2", "ascend910b3">} {
}
// CHECK: target-syntax.mlir:10:66
// CHECK: '>' expected
