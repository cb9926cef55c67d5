// RUN: rm -rf %t && not pyasc-opt %s -t 'ascendc-project{out="%t"}' 2>&1 | filecheck %s

// an input kernel that waits for a flag once more than it is set deadlocks when the project target
// simulates it for its golden outputs: an error in the input, not an internal error
// CHECK: pyasc-opt: error: the program fails in simulation: deadlock: `ascendc.wait_flag MTE3_V, %c1` in kernel @add_k0
// CHECK-NOT: internal error

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
    ascendc.wait_flag MTE3_V, %c1
    func.return
  }
  func.func @add(%x: memref<4096xf32>, %y: memref<4096xf32>, %z: memref<4096xf32>) {
    ascendc.launch @add_k0<<<4>>>(%x, %y, %z) : memref<4096xf32>, memref<4096xf32>, memref<4096xf32>
    func.return
  }
}



// The devkit's current flow (its samples' CMakeLists): find_package(ASC) before project(... ASC CXX).



// EXISTS: pyasc-opt: error: {{.*}} already exists and is not empty; pass force=True

// NODATA:     // wrote 12 files to
// NODATA-NOT: input/
