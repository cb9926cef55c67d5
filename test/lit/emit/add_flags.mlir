// RUN: pyasc-opt %s -t ascendc | filecheck %s

builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @add_k0(%x: !ascendc.gm_addr, %y: !ascendc.gm_addr, %z: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 4 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %tile = arith.constant 256 : index
    %per_core = arith.constant 4 : index
    %bid = ascendc.get_block_idx : index
    %xg = ascendc.global_tensor %x size 4096 : !ascendc.global_tensor<f32>
    %yg = ascendc.global_tensor %y size 4096 : !ascendc.global_tensor<f32>
    %zg = ascendc.global_tensor %z size 4096 : !ascendc.global_tensor<f32>
    %xb = ascendc.local_tensor VECIN address 0 size 512 : !ascendc.local_tensor<f32>
    %yb = ascendc.local_tensor VECIN address 2048 size 512 : !ascendc.local_tensor<f32>
    %zb = ascendc.local_tensor VECOUT address 4096 size 512 : !ascendc.local_tensor<f32>
    %lo = arith.muli %bid, %per_core : index
    %hi = arith.addi %lo, %per_core : index
    ascendc.set_flag V_MTE2, %c0
    ascendc.set_flag V_MTE2, %c1
    ascendc.set_flag MTE3_V, %c0
    ascendc.set_flag MTE3_V, %c1
    scf.for %t = %lo to %hi step %c1 {
      %rel = arith.subi %t, %lo : index
      %slot = arith.remui %rel, %c2 : index
      %soff = arith.muli %slot, %tile : index
      %xs = ascendc.subview %xb[%soff] : !ascendc.local_tensor<f32>
      %ys = ascendc.subview %yb[%soff] : !ascendc.local_tensor<f32>
      %zs = ascendc.subview %zb[%soff] : !ascendc.local_tensor<f32>
      %off = arith.muli %t, %tile : index
      %xgs = ascendc.subview %xg[%off] : !ascendc.global_tensor<f32>
      %ygs = ascendc.subview %yg[%off] : !ascendc.global_tensor<f32>
      %zgs = ascendc.subview %zg[%off] : !ascendc.global_tensor<f32>
      ascendc.wait_flag V_MTE2, %slot
      ascendc.data_copy %xs, %xgs, %tile : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
      ascendc.data_copy %ys, %ygs, %tile : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
      ascendc.set_flag MTE2_V, %slot
      ascendc.wait_flag MTE2_V, %slot
      ascendc.wait_flag MTE3_V, %slot
      ascendc.add %zs, %xs, %ys, %tile : !ascendc.local_tensor<f32>
      ascendc.set_flag V_MTE2, %slot
      ascendc.set_flag V_MTE3, %slot
      ascendc.wait_flag V_MTE3, %slot
      ascendc.data_copy %zgs, %zs, %tile : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>
      ascendc.set_flag MTE3_V, %slot
    }
    ascendc.wait_flag V_MTE2, %c0
    ascendc.wait_flag V_MTE2, %c1
    ascendc.wait_flag MTE3_V, %c0
    ascendc.wait_flag MTE3_V, %c1
    func.return
  }
  func.func @add(%x: memref<4096xf32>, %y: memref<4096xf32>, %z: memref<4096xf32>) {
    ascendc.launch @add_k0<<<4>>>(%x, %y, %z) : memref<4096xf32>, memref<4096xf32>, memref<4096xf32>
    func.return
  }
}

// CHECK:      #include "kernel_operator.h"
// CHECK:      // launched on 4 blocks
// CHECK-NEXT: extern "C" __global__ __aicore__ void add_k0(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
// CHECK-NEXT:     int64_t bid = AscendC::GetBlockIdx();
// CHECK-NEXT:     AscendC::GlobalTensor<float> xg;
// CHECK-NEXT:     xg.SetGlobalBuffer((__gm__ float*)x, 4096);
// CHECK:          AscendC::LocalTensor<float> xb(AscendC::TPosition::VECIN, 0, 512);
// CHECK-NEXT:     AscendC::LocalTensor<float> yb(AscendC::TPosition::VECIN, 2048, 512);
// CHECK-NEXT:     AscendC::LocalTensor<float> zb(AscendC::TPosition::VECOUT, 4096, 512);
// CHECK-NEXT:     int64_t lo = bid * 4;
// CHECK-NEXT:     int64_t hi = lo + 4;
// CHECK-NEXT:     AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(0);
// CHECK-NEXT:     AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(1);
// CHECK-NEXT:     AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(0);
// CHECK-NEXT:     AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(1);
// CHECK-NEXT:     for (int64_t t = lo; t < hi; ++t) {
// CHECK-NEXT:         int64_t rel = t - lo;
// CHECK-NEXT:         int64_t slot = rel % 2;
// CHECK:              AscendC::LocalTensor<float> xs = xb[soff];
// CHECK:              AscendC::GlobalTensor<float> xgs = xg[off];
// CHECK:              AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(slot);
// CHECK-NEXT:         AscendC::DataCopy(xs, xgs, 256);
// CHECK-NEXT:         AscendC::DataCopy(ys, ygs, 256);
// CHECK-NEXT:         AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(slot);
// CHECK-NEXT:         AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(slot);
// CHECK-NEXT:         AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(slot);
// CHECK-NEXT:         AscendC::Add(zs, xs, ys, 256);
// CHECK-NEXT:         AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(slot);
// CHECK-NEXT:         AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(slot);
// CHECK-NEXT:         AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(slot);
// CHECK-NEXT:         AscendC::DataCopy(zgs, zs, 256);
// CHECK-NEXT:         AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(slot);
// CHECK-NEXT:     }
// CHECK-NEXT:     AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(0);
// CHECK-NEXT:     AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(1);
// CHECK-NEXT:     AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(0);
// CHECK-NEXT:     AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(1);
// CHECK-NEXT: }
// The host function is not part of the kernel source.
// CHECK-NOT:  aclInit
