// RUN: pyasc-opt %s -t 'ascendc-host{build_flow=ascendc_library}' | filecheck %s
// RUN: pyasc-opt %s -t ascendc-host | filecheck %s --check-prefix=ASC
// RUN: not pyasc-opt %s -t 'ascendc-host{build_flow=cmake}' 2>&1 | filecheck %s --check-prefix=BAD

builtin.module {
  func.func @scale_k(%x: !ascendc.gm_addr, %y: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 8 : i64} {
    %c64 = arith.constant 64 : index
    %xg = ascendc.global_tensor %x size 512 : !ascendc.global_tensor<f32>
    %yg = ascendc.global_tensor %y size 512 : !ascendc.global_tensor<f32>
    %xb = ascendc.local_tensor VECIN address 0 size 64 : !ascendc.local_tensor<f32>
    ascendc.data_copy %xb, %xg, %c64 : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
    ascendc.data_copy %yg, %xb, %c64 : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>
    func.return
  }
  func.func @scale(%in: memref<512xf32>, %out: memref<512xf32>) {
    %mid = memref.alloc() : memref<512xf32>
    ascendc.launch @scale_k<<<8>>>(%in, %mid) : memref<512xf32>, memref<512xf32>
    ascendc.launch @scale_k<<<8>>>(%mid, %out) : memref<512xf32>, memref<512xf32>
    func.return
  }
}

// CHECK:      #include "acl/acl.h"
// CHECK-NEXT: #include "scale_tiling.h"
// CHECK:      #define CHECK_ACL(expr)
// CHECK:      extern "C" __global__ __aicore__ void scale_k(GM_ADDR x, GM_ADDR y);
// CHECK:      int main() {
// CHECK-NEXT:     const ScaleTiling tiling;
// CHECK:          CHECK_ACL(aclInit(nullptr));
// CHECK-NEXT:     CHECK_ACL(aclrtSetDevice(deviceId));
// CHECK:          CHECK_ACL(aclrtCreateStream(&stream));
// CHECK:          uint8_t* inDevice = nullptr;  // input: 512 x f32
// CHECK-NEXT:     CHECK_ACL(aclrtMalloc(reinterpret_cast<void**>(&inDevice), tiling.in_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK:          uint8_t* outDevice = nullptr;  // output: 512 x f32
// CHECK:          uint8_t* midDevice = nullptr;  // temp: 512 x f32
// CHECK-NOT:      midHost
// CHECK:          if (!ReadFile("input/in.bin", inHost)) {
// CHECK:          CHECK_ACL(aclrtMemcpy(inDevice, tiling.in_bytes, inHost.data(), tiling.in_bytes, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK-NOT:      input/out.bin
// CHECK:      #if defined(PYASC_SYNTAX_ONLY)
// CHECK-NEXT:     scale_k(inDevice, midDevice);
// CHECK-NEXT: #elif defined(PYASC_ACLRT_LAUNCH)
// CHECK-NEXT:     CHECK_ACL(static_cast<aclError>(ACLRT_LAUNCH_KERNEL(scale_k)(tiling.scale_k_block_dim, stream, inDevice, midDevice)));
// CHECK-NEXT: #elif defined(PYASC_CPU)
// CHECK-NEXT:     PYASC_CPU_LAUNCH(scale_k, tiling.scale_k_block_dim, stream, inDevice, midDevice);
// CHECK-NEXT: #else
// CHECK-NEXT:     scale_k<<<tiling.scale_k_block_dim, nullptr, stream>>>(inDevice, midDevice);
// CHECK-NEXT: #endif
// CHECK-NEXT:     CHECK_ACL(aclrtGetLastError(ACL_RT_THREAD_LEVEL));  // the launch's error, if any
// CHECK:          scale_k<<<tiling.scale_k_block_dim_1, nullptr, stream>>>(midDevice, outDevice);
// CHECK:          CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK:          CHECK_ACL(aclrtMemcpy(outHost.data(), tiling.out_bytes, outDevice, tiling.out_bytes, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK-NEXT:     ok = WriteFile("output/out.bin", outHost) && ok;
// CHECK:          ok = Compare("out", outHost, golden, tiling.out_count, DType::F32, 0.0001, 1e-05) && ok;
// CHECK:          CHECK_ACL(aclrtFree(inDevice));
// CHECK:          CHECK_ACL(aclrtFree(midDevice));
// CHECK-NEXT:     CHECK_ACL(aclrtDestroyStream(stream));
// CHECK-NEXT:     CHECK_ACL(aclrtResetDevice(deviceId));
// CHECK-NEXT:     CHECK_ACL(aclFinalize());
// CHECK-NEXT:     std::printf("%s\n", ok ? "PASS" : "FAIL");

// The devkit's flow: the kernel source is included (one .asc unit), the launch is <<<>>> and its error is checked.
// ASC:          #include "pyasc_cpu_launch.h"
// ASC:          #include "../kernel/scale_k.asc"
// ASC-NOT:      extern "C"
// ASC-NOT:      ACLRT_LAUNCH_KERNEL
// ASC:      #if defined(PYASC_SYNTAX_ONLY)
// ASC-NEXT:     scale_k(inDevice, midDevice);
// ASC-NEXT: #elif defined(PYASC_CPU)
// ASC-NEXT:     PYASC_CPU_LAUNCH(scale_k, tiling.scale_k_block_dim, stream, inDevice, midDevice);
// ASC-NEXT: #else
// ASC-NEXT:     scale_k<<<tiling.scale_k_block_dim, nullptr, stream>>>(inDevice, midDevice);
// ASC-NEXT: #endif
// ASC-NEXT:     CHECK_ACL(aclrtGetLastError(ACL_RT_THREAD_LEVEL));  // the launch's error, if any
// ASC:          scale_k<<<tiling.scale_k_block_dim_1, nullptr, stream>>>(midDevice, outDevice);
// ASC-NEXT: #endif
// ASC-NEXT:     CHECK_ACL(aclrtGetLastError(ACL_RT_THREAD_LEVEL));  // the launch's error, if any
// ASC-NEXT:     CHECK_ACL(aclrtSynchronizeStream(stream));

// BAD: option 'build_flow' must be one of asc, ascendc_library; got 'cmake'
