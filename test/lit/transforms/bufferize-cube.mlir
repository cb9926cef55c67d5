// RUN: pyasc-opt %s -p bufferize-cube | filecheck %s

// a cube kernel's tiles become L1 buffers (two slots: a stage loads while the last one is consumed),
// L0A/L0B slices of one K step (two slots), the L0C accumulator (two slots when two fit L0C: FixPipe drains
// block i while the cube multiplies block i + 1; one slot below); the loads, the mmad and the store
// become copy_nz (MTE2), load_l0 (MTE1), mmad (M) and fixpipe (FIX), ordered by flags whose
// write-after-read side is primed before the block loop and drained after it; B is copied first and
// each copy has its own MTE2 -> MTE1 flag (B: slot + 2), so MTE1 moves B while A is still arriving; L0C passes
// from the cube to FixPipe and back by unit flags (no M <-> FIX flags): a block of one K step has one mmad, with
// unit flag 3, and the fixpipe has unit flag 3
func.func @f_mm0(%a: memref<64x32xf16>, %b: memref<32x48xf16>, %out: memref<64x48xf16>) attributes {asctile.kernel = "cube", asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.constant 64 : index
  %n = arith.constant 48 : index
  %k = arith.constant 32 : index
  scf.for %i = %c0 to %c1 step %c1 {
    %acc0 = asctile.acc : tensor<64x48xf32>
    %r = scf.for %kt = %c0 to %c1 step %c1 iter_args(%acc = %acc0) -> (tensor<64x48xf32>) {
      %a_l1 = asctile.load_nz %a[%c0] rows %m cols %k stride 32 : memref<64x32xf16> -> tensor<64x32xf16>
      %b_l1 = asctile.load_nz %b[%c0] rows %k cols %n stride 48 : memref<32x48xf16> -> tensor<32x48xf16>
      %first = arith.cmpi eq, %kt, %c0 : index
      %p = asctile.mmad %a_l1, %b_l1, %acc init %first k %k : tensor<64x32xf16>, tensor<32x48xf16>, tensor<64x48xf32> -> tensor<64x48xf32>
      scf.yield %p : tensor<64x48xf32>
    }
    asctile.store_acc %r, %out[%c0] rows %m cols %n stride 48 : tensor<64x48xf32>, memref<64x48xf16>
  }
  func.return
}

// CHECK-LABEL: func.func @f_mm0(
// CHECK-NEXT:    %[[A1:.*]] = ascbuf.alloc slots 2 : memref<64x32xf16, #ascbuf.space<l1>>
// CHECK-NEXT:    %[[B1:.*]] = ascbuf.alloc slots 2 : memref<32x48xf16, #ascbuf.space<l1>>
// CHECK-NEXT:    %[[A0:.*]] = ascbuf.alloc slots 2 : memref<64x32xf16, #ascbuf.space<l0a>>
// CHECK-NEXT:    %[[B0:.*]] = ascbuf.alloc slots 2 : memref<32x48xf16, #ascbuf.space<l0b>>
// CHECK-NEXT:    %[[C:.*]] = ascbuf.alloc slots 2 : memref<64x48xf32, #ascbuf.space<l0c>>
// CHECK:         ascbuf.set_flag MTE1 -> MTE2
// CHECK:         ascbuf.set_flag M -> MTE1
// CHECK-NOT:     FIX
// CHECK:         scf.for %i =
// CHECK-NEXT:      %[[CS:.*]] = ascbuf.slot %[[C]][%i]
// CHECK-NEXT:      scf.for %kt =
// CHECK:             %[[SA:.*]] = ascbuf.slot %[[A1]][%{{.*}}]
// CHECK-NEXT:        %[[SB:.*]] = ascbuf.slot %[[B1]][%{{.*}}]
// CHECK-NEXT:        ascbuf.wait_flag MTE1 -> MTE2, %[[S:.*]]
// CHECK-NEXT:        %[[SB2:.*]] = arith.addi %[[S]], %{{.*}} : index
// CHECK:             ascbuf.copy_nz %b[%{{.*}}], %[[SB]] rows %{{.*}} cols %{{.*}} stride 48
// CHECK-NEXT:        ascbuf.set_flag MTE2 -> MTE1, %[[SB2]]
// CHECK-NEXT:        ascbuf.copy_nz %a[%{{.*}}], %[[SA]] rows %{{.*}} cols %{{.*}} stride 32
// CHECK-NEXT:        ascbuf.set_flag MTE2 -> MTE1, %[[S]]
// CHECK-NEXT:        ascbuf.wait_flag MTE2 -> MTE1, %[[SB2]]
// CHECK:             scf.for %kk =
// CHECK:               %[[F:.*]] = arith.cmpi eq, %kk, %{{.*}} : index
// CHECK:               ascbuf.wait_flag M -> MTE1
// CHECK-NEXT:          ascbuf.load_l0 %[[SB]], %{{.*}} step %kk
// CHECK-NEXT:          scf.if %[[F]] {
// CHECK-NEXT:            ascbuf.wait_flag MTE2 -> MTE1, %[[S]]
// CHECK-NEXT:          }
// CHECK-NEXT:          ascbuf.load_l0 %[[SA]], %{{.*}} step %kk
// CHECK-NEXT:          ascbuf.set_flag MTE1 -> M
// CHECK-NEXT:          ascbuf.wait_flag MTE1 -> M
// CHECK-NEXT:          ascbuf.mmad %[[CS]], %{{.*}}, %{{.*}} m %{{.*}} n %{{.*}} k %{{.*}} init %{{.*}} unit_flag 3 :
// CHECK-NEXT:          ascbuf.set_flag M -> MTE1
// CHECK:             ascbuf.set_flag MTE1 -> MTE2
// CHECK-NEXT:      }
// CHECK-NEXT:      ascbuf.fixpipe %[[CS]], %out[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 48 unit_flag 3 :
// CHECK-NEXT:    }
// CHECK:         ascbuf.wait_flag MTE1 -> MTE2
// CHECK:         ascbuf.wait_flag M -> MTE1
// CHECK-NOT:     FIX
// CHECK-NOT:     asctile.

// an accumulator of 256 x 128 float32 fills L0C (128 KB): one slot, the cube waits for each block's Fixpipe
func.func @big_mm0(%a: memref<256x32xf16>, %b: memref<32x128xf16>, %out: memref<256x128xf16>) attributes {asctile.kernel = "cube", asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.constant 256 : index
  %n = arith.constant 128 : index
  %k = arith.constant 32 : index
  scf.for %i = %c0 to %c1 step %c1 {
    %acc0 = asctile.acc : tensor<256x128xf32>
    %r = scf.for %kt = %c0 to %c1 step %c1 iter_args(%acc = %acc0) -> (tensor<256x128xf32>) {
      %a_l1 = asctile.load_nz %a[%c0] rows %m cols %k stride 32 : memref<256x32xf16> -> tensor<256x32xf16>
      %b_l1 = asctile.load_nz %b[%c0] rows %k cols %n stride 128 : memref<32x128xf16> -> tensor<32x128xf16>
      %first = arith.cmpi eq, %kt, %c0 : index
      %p = asctile.mmad %a_l1, %b_l1, %acc init %first k %k : tensor<256x32xf16>, tensor<32x128xf16>, tensor<256x128xf32> -> tensor<256x128xf32>
      scf.yield %p : tensor<256x128xf32>
    }
    asctile.store_acc %r, %out[%c0] rows %m cols %n stride 128 : tensor<256x128xf32>, memref<256x128xf16>
  }
  func.return
}
// CHECK-LABEL: func.func @big_mm0(
// CHECK:         %[[BC:.*]] = ascbuf.alloc slots 1 : memref<256x128xf32, #ascbuf.space<l0c>>
// CHECK:         scf.for %i =
// CHECK:             ascbuf.mmad %[[BC]], {{.*}} unit_flag 3 :
// CHECK:           ascbuf.fixpipe %[[BC]], {{.*}} unit_flag 3 :

// two L1 stages, two K steps each (a 256 x 128 block takes 64 K columns a step): the block's last mmad (last stage,
// last step) has unit flag 3 and accumulates (a block of several steps does not start in its last), the others 2
func.func @steps_mm0(%a: memref<256x256xf16>, %b: memref<256x128xf16>, %out: memref<256x128xf16>) attributes {asctile.kernel = "cube", asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %m = arith.constant 256 : index
  %n = arith.constant 128 : index
  scf.for %i = %c0 to %c1 step %c1 {
    %acc0 = asctile.acc : tensor<256x128xf32>
    %r = scf.for %kt = %c0 to %c2 step %c1 iter_args(%acc = %acc0) -> (tensor<256x128xf32>) {
      %off = arith.muli %kt, %c128 : index
      %a_l1 = asctile.load_nz %a[%off] rows %m cols %c128 stride 256 : memref<256x256xf16> -> tensor<256x128xf16>
      %boff = arith.muli %off, %n : index
      %b_l1 = asctile.load_nz %b[%boff] rows %c128 cols %n stride 128 : memref<256x128xf16> -> tensor<128x128xf16>
      %first = arith.cmpi eq, %kt, %c0 : index
      %p = asctile.mmad %a_l1, %b_l1, %acc init %first k %c128 : tensor<256x128xf16>, tensor<128x128xf16>, tensor<256x128xf32> -> tensor<256x128xf32>
      scf.yield %p : tensor<256x128xf32>
    }
    asctile.store_acc %r, %out[%c0] rows %m cols %n stride 128 : tensor<256x128xf32>, memref<256x128xf16>
  }
  func.return
}
// CHECK-LABEL: func.func @steps_mm0(
// CHECK:         scf.for %kt = %{{.*}} to %[[NS:.*]] step %[[S1:.*]] {
// CHECK:           scf.for %kk = %{{.*}} to %[[NK:.*]] step %{{.*}} {
// CHECK:             %[[KT1:.*]] = arith.addi %kt, %[[S1]] : index
// CHECK-NEXT:        %[[LS:.*]] = arith.cmpi uge, %[[KT1]], %[[NS]] : index
// CHECK:             %[[KK1:.*]] = arith.addi %kk, %{{.*}} : index
// CHECK-NEXT:        %[[LK:.*]] = arith.cmpi uge, %[[KK1]], %[[NK]] : index
// CHECK-NEXT:        %[[LAST:.*]] = arith.andi %[[LS]], %[[LK]] : i1
// CHECK-NEXT:        scf.if %[[LAST]] {
// CHECK-NEXT:          %[[NO:.*]] = arith.constant false
// CHECK-NEXT:          ascbuf.mmad {{.*}} init %[[NO]] unit_flag 3 :
// CHECK-NEXT:        } else {
// CHECK-NEXT:          ascbuf.mmad {{.*}} unit_flag 2 :
// CHECK-NEXT:        }
// CHECK:         ascbuf.fixpipe {{.*}} unit_flag 3 :

// a bias row: one L1 row of the bias's type and one BiasTable row, both whole 64 B units (48 float16 -> 64); in the
// block's first K step (init), copy_bias (MTE2) and, after the step's load_l0, load_bias (MTE1) ordered by MTE2 -> MTE1
// 4; one L1 stage and one K step per block, so the L1 row and the BT row also need their write-after-read flags
// (MTE1 -> MTE2 2 and M -> MTE1 2, primed and drained with the others); the first mmad starts from the row and
// then releases it
func.func @bias_mm0(%a: memref<64x32xf16>, %b: memref<32x48xf16>, %c: memref<48xf16>, %out: memref<64x48xf16>) attributes {asctile.kernel = "cube", asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.constant 64 : index
  %n = arith.constant 48 : index
  %k = arith.constant 32 : index
  scf.for %i = %c0 to %c1 step %c1 {
    %bias = asctile.load_bias %c[%c0] cols %n : memref<48xf16> -> tensor<1x48xf32>
    %acc0 = asctile.acc : tensor<64x48xf32>
    %r = scf.for %kt = %c0 to %c1 step %c1 iter_args(%acc = %acc0) -> (tensor<64x48xf32>) {
      %a_l1 = asctile.load_nz %a[%c0] rows %m cols %k stride 32 : memref<64x32xf16> -> tensor<64x32xf16>
      %b_l1 = asctile.load_nz %b[%c0] rows %k cols %n stride 48 : memref<32x48xf16> -> tensor<32x48xf16>
      %first = arith.cmpi eq, %kt, %c0 : index
      %p = asctile.mmad %a_l1, %b_l1, %acc init %first k %k bias %bias : tensor<64x32xf16>, tensor<32x48xf16>, tensor<64x48xf32>, tensor<1x48xf32> -> tensor<64x48xf32>
      scf.yield %p : tensor<64x48xf32>
    }
    asctile.store_acc %r, %out[%c0] rows %m cols %n stride 48 : tensor<64x48xf32>, memref<64x48xf16>
  }
  func.return
}
// CHECK-LABEL: func.func @bias_mm0(
// CHECK:         %bias_l1 = ascbuf.alloc slots 1 : memref<1x64xf16, #ascbuf.space<l1>>
// CHECK-NEXT:    %bias_bt = ascbuf.alloc slots 1 : memref<1x64xf32, #ascbuf.space<bt>>
// CHECK:         %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    ascbuf.set_flag MTE1 -> MTE2, %[[TWO]]
// CHECK-NEXT:    ascbuf.set_flag M -> MTE1, %[[TWO]]
// CHECK-NEXT:    scf.for %i =
// CHECK:           scf.for %kk =
// CHECK:             %[[INIT:.*]] = arith.andi
// CHECK:             scf.if %[[INIT]] {
// CHECK-NEXT:          ascbuf.wait_flag MTE1 -> MTE2, %[[T:.*]]
// CHECK-NEXT:          ascbuf.copy_bias %c[%{{.*}}], %bias_l1 cols %{{.*}} : memref<48xf16>, memref<1x64xf16, #ascbuf.space<l1>>
// CHECK-NEXT:          ascbuf.set_flag MTE2 -> MTE1, %[[F:.*]]
// CHECK:             ascbuf.load_l0
// CHECK:             ascbuf.load_l0
// CHECK:             scf.if %[[INIT]] {
// CHECK-NEXT:          ascbuf.wait_flag MTE2 -> MTE1, %[[F]]
// CHECK-NEXT:          ascbuf.wait_flag M -> MTE1, %[[T]]
// CHECK-NEXT:          ascbuf.load_bias %bias_l1, %bias_bt cols %{{.*}} : memref<1x64xf16, #ascbuf.space<l1>>, memref<1x64xf32, #ascbuf.space<bt>>
// CHECK-NEXT:          ascbuf.set_flag MTE1 -> MTE2, %[[T]]
// CHECK:             ascbuf.mmad %{{.*}}, %{{.*}}, %{{.*}} m %{{.*}} n %{{.*}} k %{{.*}} init %[[INIT]] bias %bias_bt
// CHECK:             scf.if %[[INIT]] {
// CHECK-NEXT:          ascbuf.set_flag M -> MTE1, %[[T]]
// CHECK:         ascbuf.wait_flag M -> MTE1
// CHECK-NEXT:    ascbuf.wait_flag M -> MTE1
// CHECK-NEXT:    %[[D:.*]] = arith.constant 2 : index
// CHECK-NEXT:    ascbuf.wait_flag MTE1 -> MTE2, %[[D]]
// CHECK-NEXT:    ascbuf.wait_flag M -> MTE1, %[[D]]
