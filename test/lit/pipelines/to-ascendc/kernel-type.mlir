// RUN: pyasc-opt %s -p 'compile{cores=2}' | filecheck %s
// RUN: pyasc-opt %s -p 'compile{cores=2}' -t ascendc | filecheck %s --check-prefix=CPP

// every kernel says which cores it needs (KERNEL_TASK_TYPE_DEFAULT), so a launch starts only those:
// the elementwise kernel only the AIVs, the matmul after it only the AICs
func.func @f(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>) -> tensor<64x48xf16> {
  %0 = math.exp %a : tensor<64x32xf16>
  %1 = asctensor.matmul %0, %b : tensor<64x32xf16>, tensor<32x48xf16> -> tensor<64x48xf16>
  func.return %1 : tensor<64x48xf16>
}

// CHECK-DAG:  func.func @f_k0({{.*}}) attributes {ascendc.kernel, ascendc.block_dim = {{[0-9]+}} : i64, ascendc.kernel_type = "aiv_only"}
// CHECK-DAG:  func.func @f_mm0({{.*}}) attributes {ascendc.kernel, ascendc.block_dim = {{[0-9]+}} : i64, ascendc.kernel_type = "aic_only"}

// CPP:        void f_mm0({{.*}}) {
// CPP-NEXT:     KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
// CPP:        void f_k0({{.*}}) {
// CPP-NEXT:     KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
