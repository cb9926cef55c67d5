// RUN: pyasc-opt %s -p 'tile-mix{cores=2}' | filecheck %s
// RUN: pyasc-opt %s -p 'tile-mix{cores=2},bufferize,bufferize-cube,plan-memory,insert-sync' | filecheck %s --check-prefix=BUF
// RUN: pyasc-opt %s -p 'tile-mix{cores=2},bufferize,bufferize-cube,plan-memory,insert-sync,convert-ascbuf-to-ascendc' -t ascendc | filecheck %s --check-prefix=CPP

// 256 x 128 x 64 fp16 + bias on 2 AI Cores: one 128 x 128 block each; the AIC stores it to the
// workspace (the product), each AIV adds the bias to its 64 rows of the block. 4 credits: the AIVs
// signal `free` 4 times first, the AIC takes one per block and drains the rest after its loop.
func.func @f_mm0(%a: tensor<256x64xf16>, %b: tensor<64x128xf16>, %bias: tensor<128xf16>) -> (tensor<256x128xf16>, tensor<256x128xf16>) attributes {asctensor.kernel = "mix"} {
  %0 = asctensor.matmul %a, %b : tensor<256x64xf16>, tensor<64x128xf16> -> tensor<256x128xf16>
  %1 = asctensor.broadcast %bias : tensor<128xf16> -> tensor<256x128xf16>
  %2 = arith.addf %0, %1 : tensor<256x128xf16>
  func.return %0, %2 : tensor<256x128xf16>, tensor<256x128xf16>
}
// CHECK:      func.func @f_mm0(%a: memref<256x64xf16>, %b: memref<64x128xf16>, %bias: memref<128xf16>, %workspace: memref<256x128xf16>, %out0: memref<256x128xf16>) attributes {asctile.kernel = "mix", asctile.block_dim = 2 : i64, asctile.buffers = 2 : i64, asctile.mix_credits = 4 : i64} {
// CHECK-NEXT:   asctile.core_section aic {
// CHECK:          asctile.mmad
// CHECK:          asctile.cross_wait free
// CHECK-NEXT:     asctile.store_acc %{{.*}}, %workspace[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 128
// CHECK-NEXT:     asctile.cross_signal ready
// CHECK-NEXT:   }
// CHECK:        scf.for
// CHECK-NEXT:     asctile.cross_wait free
// CHECK:        asctile.core_section aiv {
// CHECK-COUNT-4:  asctile.cross_signal free
// CHECK:          %[[SUB:.*]] = asctile.sub_block_idx : index
// CHECK:          scf.for
// CHECK-NEXT:       asctile.cross_wait ready
// CHECK:            asctile.load %workspace[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(128, 1) : memref<256x128xf16> -> tensor<64x128xf16>
// CHECK-NEXT:       asctile.cross_signal free
// CHECK:            %[[ROW:.*]] = asctile.load %bias[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(0, 1) : memref<128xf16> -> tensor<1x128xf16>
// CHECK-NEXT:       asctile.repeat_rows %[[ROW]] : tensor<1x128xf16> -> tensor<64x128xf16>
// CHECK:            arith.addf %{{.*}} : tensor<64x128xf16>
// CHECK:            asctile.store %{{.*}}, %out0

// BUF:      asctile.core_section aic {
// BUF:        ascbuf.cross_wait_flag %{{.*}}
// BUF:        ascbuf.fixpipe %c_l0_slot, %workspace
// BUF:        ascbuf.cross_set_flag FIX, %{{.*}}
// BUF:      asctile.core_section aiv {
// BUF:        ascbuf.alloc slots 2 offset 0 : memref<64x128xf16, #ascbuf.space<ub>>
// BUF:        ascbuf.cross_set_flag MTE2, %{{.*}}
// BUF:        scf.for
// BUF:          ascbuf.cross_wait_flag %{{.*}}
// BUF:          ascbuf.copy_in %workspace
// BUF:          ascbuf.cross_set_flag MTE2, %{{.*}}
// BUF:          ascbuf.copy_in %bias
// BUF:          ascbuf.vrepeat_rows

// CPP:      extern "C" __global__ __aicore__ void f_mm0(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR workspace, GM_ADDR out0) {
// CPP-NEXT:   KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
// CPP-NEXT:   if ASCEND_IS_AIC {
// CPP:          AscendC::CrossCoreWaitFlag(1);
// CPP:          AscendC::Fixpipe
// CPP:          AscendC::CrossCoreSetFlag<2, PIPE_FIX>(0);
// CPP:        if ASCEND_IS_AIV {
// CPP:          AscendC::CrossCoreSetFlag<2, PIPE_MTE2>(1);
// CPP:          int64_t subBlockIdx = AscendC::GetSubBlockIdx();
// CPP:          AscendC::CrossCoreWaitFlag(0);
// CPP:          AscendC::DataCopyPad
// CPP:          AscendC::CrossCoreSetFlag<2, PIPE_MTE2>(1);
