// RUN: pyasc-opt %s -t ascendc | filecheck %s

builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @add_k0(%x: !ascendc.gm_addr, %y: !ascendc.gm_addr, %z: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 2 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %tile = arith.constant 256 : index
    %n = arith.constant 1000 : index
    %ntiles = arith.constant 4 : index
    %esize = arith.constant 2 : index
    %bid = ascendc.get_block_idx : index
    %nblk = ascendc.get_block_num : index
    %xg = ascendc.global_tensor %x size 1000 : !ascendc.global_tensor<f16>
    %yg = ascendc.global_tensor %y size 1000 : !ascendc.global_tensor<f16>
    %zg = ascendc.global_tensor %z size 1000 : !ascendc.global_tensor<f16>
    %pipe = ascendc.tpipe : !ascendc.tpipe
    %qx = ascendc.tque : !ascendc.tque<VECIN, 2>
    %qy = ascendc.tque : !ascendc.tque<VECIN, 2>
    %qz = ascendc.tque : !ascendc.tque<VECOUT, 2>
    %tmp = ascendc.tbuf : !ascendc.tbuf<VECCALC>
    ascendc.init_buffer %pipe, %qx num 2 len 512 : !ascendc.tque<VECIN, 2>
    ascendc.init_buffer %pipe, %qy num 2 len 512 : !ascendc.tque<VECIN, 2>
    ascendc.init_buffer %pipe, %qz num 2 len 512 : !ascendc.tque<VECOUT, 2>
    ascendc.init_buffer %pipe, %tmp num 1 len 512 : !ascendc.tbuf<VECCALC>
    %s = arith.constant 1.5 : f16
    scf.for %t = %bid to %ntiles step %nblk {
      %off = arith.muli %t, %tile : index
      %rest = arith.subi %n, %off : index
      %valid = arith.minui %rest, %tile : index
      %bytes = arith.muli %valid, %esize : index
      %xgs = ascendc.subview %xg[%off] : !ascendc.global_tensor<f16>
      %ygs = ascendc.subview %yg[%off] : !ascendc.global_tensor<f16>
      %zgs = ascendc.subview %zg[%off] : !ascendc.global_tensor<f16>
      %xl = ascendc.alloc_tensor %qx : !ascendc.tque<VECIN, 2> -> !ascendc.local_tensor<f16>
      ascendc.data_copy_pad %xl, %xgs, {%c1, %bytes, %c0, %c0} : !ascendc.local_tensor<f16>, !ascendc.global_tensor<f16>
      ascendc.enque %qx, %xl : !ascendc.tque<VECIN, 2>, !ascendc.local_tensor<f16>
      %yl = ascendc.alloc_tensor %qy : !ascendc.tque<VECIN, 2> -> !ascendc.local_tensor<f16>
      ascendc.data_copy_pad %yl, %ygs, {%c1, %bytes, %c0, %c0} : !ascendc.local_tensor<f16>, !ascendc.global_tensor<f16>
      ascendc.enque %qy, %yl : !ascendc.tque<VECIN, 2>, !ascendc.local_tensor<f16>
      %xd = ascendc.deque %qx : !ascendc.tque<VECIN, 2> -> !ascendc.local_tensor<f16>
      %yd = ascendc.deque %qy : !ascendc.tque<VECIN, 2> -> !ascendc.local_tensor<f16>
      %t0 = ascendc.tbuf_get %tmp : !ascendc.tbuf<VECCALC> -> !ascendc.local_tensor<f16>
      ascendc.add %t0, %xd, %yd, %tile : !ascendc.local_tensor<f16>
      ascendc.free_tensor %qx, %xd : !ascendc.tque<VECIN, 2>, !ascendc.local_tensor<f16>
      ascendc.free_tensor %qy, %yd : !ascendc.tque<VECIN, 2>, !ascendc.local_tensor<f16>
      ascendc.pipe_barrier PIPE_V
      ascendc.relu %t0, %t0, %tile : !ascendc.local_tensor<f16>
      %zl = ascendc.alloc_tensor %qz : !ascendc.tque<VECOUT, 2> -> !ascendc.local_tensor<f16>
      ascendc.pipe_barrier PIPE_V
      ascendc.muls %zl, %t0, %s, %tile : !ascendc.local_tensor<f16>, f16
      ascendc.enque %qz, %zl : !ascendc.tque<VECOUT, 2>, !ascendc.local_tensor<f16>
      %zd = ascendc.deque %qz : !ascendc.tque<VECOUT, 2> -> !ascendc.local_tensor<f16>
      ascendc.data_copy_pad %zgs, %zd, {%c1, %bytes, %c0, %c0} : !ascendc.global_tensor<f16>, !ascendc.local_tensor<f16>
      ascendc.free_tensor %qz, %zd : !ascendc.tque<VECOUT, 2>, !ascendc.local_tensor<f16>
    }
    func.return
  }
  func.func @add(%x: memref<1000xf16>, %y: memref<1000xf16>, %z: memref<1000xf16>) {
    ascendc.launch @add_k0<<<2>>>(%x, %y, %z) : memref<1000xf16>, memref<1000xf16>, memref<1000xf16>
    func.return
  }
}

// CHECK:      extern "C" __global__ __aicore__ void add_k0(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
// CHECK:          int64_t nblk = AscendC::GetBlockNum();
// CHECK:          AscendC::GlobalTensor<half> xg;
// CHECK:          AscendC::TPipe pipe;
// CHECK-NEXT:     AscendC::TQue<AscendC::TPosition::VECIN, 2> qx;
// CHECK-NEXT:     AscendC::TQue<AscendC::TPosition::VECIN, 2> qy;
// CHECK-NEXT:     AscendC::TQue<AscendC::TPosition::VECOUT, 2> qz;
// CHECK-NEXT:     AscendC::TBuf<AscendC::TPosition::VECCALC> tmp;
// CHECK-NEXT:     pipe.InitBuffer(qx, 2, 512);
// CHECK-NEXT:     pipe.InitBuffer(qy, 2, 512);
// CHECK-NEXT:     pipe.InitBuffer(qz, 2, 512);
// CHECK-NEXT:     pipe.InitBuffer(tmp, 512);
// CHECK-NEXT:     const half s = 1.5f;
// CHECK-NEXT:     for (int64_t t = bid; t < 4; t += nblk) {
// CHECK-NEXT:         int64_t off = t * 256;
// CHECK-NEXT:         int64_t rest = 1000 - off;
// CHECK-NEXT:         int64_t valid = static_cast<uint64_t>(rest) < 256 ? rest : 256;
// CHECK-NEXT:         int64_t bytes = valid * 2;
// CHECK:              AscendC::LocalTensor<half> xl = qx.AllocTensor<half>();
// CHECK-NEXT:         AscendC::DataCopyPad(xl, xgs, AscendC::DataCopyExtParams{1, static_cast<uint32_t>(bytes), 0, 0, 0}, AscendC::DataCopyPadExtParams<half>{false, 0, 0, 0});
// CHECK-NEXT:         qx.EnQue(xl);
// CHECK:              AscendC::LocalTensor<half> xd = qx.DeQue<half>();
// CHECK-NEXT:         AscendC::LocalTensor<half> yd = qy.DeQue<half>();
// CHECK-NEXT:         AscendC::LocalTensor<half> t0 = tmp.Get<half>();
// CHECK-NEXT:         AscendC::Add(t0, xd, yd, 256);
// CHECK-NEXT:         qx.FreeTensor(xd);
// CHECK-NEXT:         qy.FreeTensor(yd);
// CHECK-NEXT:         AscendC::PipeBarrier<PIPE_V>();
// CHECK-NEXT:         AscendC::Relu(t0, t0, 256);
// CHECK:              AscendC::Muls(zl, t0, s, 256);
// CHECK-NEXT:         qz.EnQue(zl);
// CHECK-NEXT:         AscendC::LocalTensor<half> zd = qz.DeQue<half>();
// CHECK-NEXT:         AscendC::DataCopyPad(zgs, zd, AscendC::DataCopyExtParams{1, static_cast<uint32_t>(bytes), 0, 0, 0});
// CHECK-NEXT:         qz.FreeTensor(zd);
// CHECK-NEXT:     }
// CHECK-NEXT: }
