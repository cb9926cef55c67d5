// RUN: PYASC_ROUNDTRIP
// RUN: PYASC_CUSTOM_ROUNDTRIP

builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
}
// CHECK: builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {

// -----

builtin.module attributes {asc.target = #asc.target<"ascend910b4">, other = #asc.target<"ascend910b1">} {
}
// CHECK: builtin.module attributes {asc.target = #asc.target<"ascend910b4">, other = #asc.target<"ascend910b1">} {
