// RUN: pyasc-opt %s -p "tile-matmul{cores=1 base_m=128 base_n=256},bufferize-cube,plan-memory" | filecheck %s

func.func @f_mm0(%a: tensor<256x512xf16>, %b: tensor<512x256xf16>) -> tensor<256x256xf16> attributes {asctensor.kernel = "matmul"} {
  %z = asctensor.full 0.0 : f16 -> tensor<256x256xf16>
  %0 = asctensor.matmul %a, %b : tensor<256x512xf16>, tensor<512x256xf16> -> tensor<256x256xf16>
  %1 = arith.maximumf %0, %z : tensor<256x256xf16>
  func.return %1 : tensor<256x256xf16>
}
// double-buffered L1 tiles and L0 slices, one L0C accumulator, placed by plan-memory per memory
// (one core, 128 x 256 blocks as set by the options; L1 stages of K = 64, whose 128 x 64 fp16 copy of A
// reaches 16 KB, L0 steps of K = 64)
// CHECK:      %a_l1 = ascbuf.alloc slots 2 offset 0 : memref<128x64xf16, #ascbuf.space<l1>>
// CHECK-NEXT: %b_l1 = ascbuf.alloc slots 2 offset 32768 : memref<64x256xf16, #ascbuf.space<l1>>
// CHECK-NEXT: %a_l0 = ascbuf.alloc slots 2 offset 0 : memref<128x64xf16, #ascbuf.space<l0a>>
// CHECK-NEXT: %b_l0 = ascbuf.alloc slots 2 offset 0 : memref<64x256xf16, #ascbuf.space<l0b>>
// CHECK-NEXT: %c_l0 = ascbuf.alloc slots 1 offset 0 : memref<128x256xf32, #ascbuf.space<l0c>>
// the write-after-read flags are primed before the block loop; L0C passes between the cube and FixPipe by unit
// flags (the block's last mmad and the fixpipe 3, the other mmads 2), with no M <-> FIX flag
// CHECK:      ascbuf.set_flag MTE1 -> MTE2, %{{.*}}
// CHECK:      ascbuf.set_flag M -> MTE1, %{{.*}}
// CHECK-NOT:  FIX
// CHECK:      scf.for %i
// CHECK:        scf.for %kt
// CHECK:          ascbuf.wait_flag MTE1 -> MTE2, %[[S:.*]]
// CHECK:          ascbuf.copy_nz %b[%{{.*}}], %{{.*}} rows %{{.*}} cols %{{.*}} stride 256
// CHECK-NEXT:     ascbuf.set_flag MTE2 -> MTE1, %[[SB:.*]]
// CHECK-NEXT:     ascbuf.copy_nz %a[%{{.*}}], %{{.*}} rows %{{.*}} cols %{{.*}} stride 512
// CHECK-NEXT:     ascbuf.set_flag MTE2 -> MTE1, %[[S]]
// CHECK-NEXT:     ascbuf.wait_flag MTE2 -> MTE1, %[[SB]]
// CHECK:          scf.for %kk
// CHECK:            ascbuf.wait_flag M -> MTE1, %[[P:.*]]
// CHECK-NEXT:       ascbuf.load_l0
// CHECK:            scf.if
// CHECK-NEXT:         ascbuf.wait_flag MTE2 -> MTE1, %[[S]]
// CHECK-NEXT:       }
// CHECK-NEXT:       ascbuf.load_l0
// CHECK-NEXT:       ascbuf.set_flag MTE1 -> M, %[[P]]
// CHECK-NEXT:       ascbuf.wait_flag MTE1 -> M, %[[P]]
// CHECK:            scf.if
// CHECK-NEXT:         %[[NO:.*]] = arith.constant false
// CHECK-NEXT:         ascbuf.mmad %c_l0, {{.*}} init %[[NO]] unit_flag 3 :
// CHECK-NEXT:       } else {
// CHECK-NEXT:         ascbuf.mmad %c_l0, {{.*}} unit_flag 2 :
// CHECK-NEXT:       }
// CHECK-NEXT:       ascbuf.set_flag M -> MTE1, %[[P]]
// CHECK:          ascbuf.set_flag MTE1 -> MTE2, %[[S]]
// CHECK:        ascbuf.fixpipe %c_l0, %out[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 256 relu unit_flag 3 :
// CHECK:      ascbuf.wait_flag MTE1 -> MTE2
// CHECK-NOT:  FIX
