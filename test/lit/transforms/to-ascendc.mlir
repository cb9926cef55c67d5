// RUN: pyasc-opt %s -p to-ascendc | filecheck %s
// RUN: pyasc-opt %s -p 'to-ascendc{sync_style=flags}' | filecheck %s --check-prefix=FLAGS

// the last stage: buffer-level kernels become Ascend C calls (TQue/TBuf in the default queue style,
// static LocalTensors with flags otherwise) and the host's calls become launches
func.func @k(%x: memref<2048xf32>, %out0: memref<2048xf32>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
  %x_buf = ascbuf.alloc slots 2 offset 0 : memref<1x1024xf32, #ascbuf.space<ub>>
  %out_buf = ascbuf.alloc slots 2 offset 8192 : memref<1x1024xf32, #ascbuf.space<ub>>
  %n = arith.constant 1024 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    %off = arith.muli %i, %n : index
    %xs = ascbuf.slot %x_buf[%i] : memref<1x1024xf32, #ascbuf.space<ub>>
    ascbuf.copy_in %x[%off], %xs rows %c1 cols %n strides(0, 1) dense : memref<2048xf32>, memref<1x1024xf32, #ascbuf.space<ub>>
    %os = ascbuf.slot %out_buf[%i] : memref<1x1024xf32, #ascbuf.space<ub>>
    ascbuf.vunary abs %os, %xs, %n : memref<1x1024xf32, #ascbuf.space<ub>>
    ascbuf.copy_out %os, %out0[%off] rows %c1 cols %n stride 2048 dense : memref<1x1024xf32, #ascbuf.space<ub>>, memref<2048xf32>
  }
  func.return
}
func.func @f(%x: memref<2048xf32>, %out0: memref<2048xf32>) {
  func.call @k(%x, %out0) : (memref<2048xf32>, memref<2048xf32>) -> ()
  func.return
}

// CHECK:      func.func @k(%x: !ascendc.gm_addr, %out0: !ascendc.gm_addr)
// CHECK:        %xQue = ascendc.tque : !ascendc.tque<VECIN, 1>
// CHECK:        %outQue = ascendc.tque : !ascendc.tque<VECOUT, 1>
// CHECK:        ascendc.abs %{{.*}}, %{{.*}}, %n : !ascendc.local_tensor<f32>
// CHECK:      func.func @f(
// CHECK-NEXT:   ascendc.launch @k<<<1>>> (%x, %out0)
// CHECK-NOT:  ascbuf.

// FLAGS:      %x_buf = ascendc.local_tensor VECIN address 0 size 2048 : !ascendc.local_tensor<f32>
// FLAGS:      %out_buf = ascendc.local_tensor VECOUT address 8192 size 2048 : !ascendc.local_tensor<f32>
// FLAGS:      ascendc.abs
// FLAGS-NOT:  ascendc.tque
