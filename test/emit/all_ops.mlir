// Every ascendc op the kernel emitter prints, plus scalar arith / scf.if / loop-carried values.
builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @all_k(%a: !ascendc.gm_addr, %b: !ascendc.gm_addr, %o: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 8 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %n = arith.constant 128 : index
    %f = arith.constant 2.5 : f32
    %h = arith.constant -0.5 : f16
    %i7 = arith.constant 7 : i32
    %bid = ascendc.get_block_idx {asc.loc = "model.py:3"} : index
    %nb = ascendc.get_block_num {asc.loc = "model.py:3"} : index
    %ag = ascendc.global_tensor %a size 1024 {asc.loc = "model.py:4"} : !ascendc.global_tensor<f32>
    %bg = ascendc.global_tensor %b size 1024 : !ascendc.global_tensor<f16>
    %og = ascendc.global_tensor %o size 1024 : !ascendc.global_tensor<f32>
    %pipe = ascendc.tpipe : !ascendc.tpipe
    %q = ascendc.tque : !ascendc.tque<VECIN, 1>
    %buf = ascendc.tbuf : !ascendc.tbuf<VECCALC>
    ascendc.init_buffer %pipe, %q num 1 len 512 : !ascendc.tque<VECIN, 1>
    ascendc.init_buffer %pipe, %buf num 1 len 1024 : !ascendc.tbuf<VECCALC>
    %x = ascendc.local_tensor VECIN address 0 size 128 : !ascendc.local_tensor<f32>
    %y = ascendc.local_tensor VECOUT address 512 size 128 : !ascendc.local_tensor<f32>
    %hx = ascendc.local_tensor VECCALC address 1024 size 128 : !ascendc.local_tensor<f16>
    %ix = ascendc.local_tensor VECCALC address 1536 size 128 : !ascendc.local_tensor<i32>
    %off = arith.muli %bid, %n : index
    %ags = ascendc.subview %ag[%off] : !ascendc.global_tensor<f32>
    %first = ascendc.get_value %ags[%c0] : !ascendc.global_tensor<f32> -> f32
    ascendc.data_copy %x, %ags, %n : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
    ascendc.set_flag MTE2_V, %c0
    ascendc.wait_flag MTE2_V, %c0
    ascendc.add %y, %x, %x, %n : !ascendc.local_tensor<f32>
    ascendc.sub %y, %y, %x, %n : !ascendc.local_tensor<f32>
    ascendc.mul %y, %y, %x, %n : !ascendc.local_tensor<f32>
    ascendc.div %y, %y, %x, %n : !ascendc.local_tensor<f32>
    ascendc.max %y, %y, %x, %n : !ascendc.local_tensor<f32>
    ascendc.min %y, %y, %x, %n : !ascendc.local_tensor<f32>
    ascendc.exp %y, %y, %n : !ascendc.local_tensor<f32>
    ascendc.ln %y, %y, %n : !ascendc.local_tensor<f32>
    ascendc.abs %y, %y, %n : !ascendc.local_tensor<f32>
    ascendc.sqrt %y, %y, %n : !ascendc.local_tensor<f32>
    ascendc.rsqrt %y, %y, %n : !ascendc.local_tensor<f32>
    ascendc.reciprocal %y, %y, %n : !ascendc.local_tensor<f32>
    ascendc.relu %y, %y, %n : !ascendc.local_tensor<f32>
    ascendc.adds %y, %y, %f, %n : !ascendc.local_tensor<f32>, f32
    ascendc.muls %y, %y, %first, %n : !ascendc.local_tensor<f32>, f32
    ascendc.maxs %y, %y, %f, %n : !ascendc.local_tensor<f32>, f32
    ascendc.mins %y, %y, %f, %n : !ascendc.local_tensor<f32>, f32
    ascendc.duplicate %hx, %h, %n : !ascendc.local_tensor<f16>, f16
    ascendc.duplicate %ix, %i7, %n : !ascendc.local_tensor<i32>, i32
    %ixh = ascendc.reinterpret_cast %ix : !ascendc.local_tensor<i32> -> !ascendc.local_tensor<i16>
    %n2 = arith.constant 256 : index
    ascendc.and %ixh, %ixh, %ixh, %n2 : !ascendc.local_tensor<i16>
    ascendc.or %ixh, %ixh, %ixh, %n2 : !ascendc.local_tensor<i16>
    ascendc.cast %y, %hx, CAST_NONE, %n : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f16>
    ascendc.cast %hx, %y, CAST_RINT, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f32>
    %t = ascendc.alloc_tensor %q : !ascendc.tque<VECIN, 1> -> !ascendc.local_tensor<f16>
    %bgs = ascendc.subview %bg[%off] : !ascendc.global_tensor<f16>
    ascendc.data_copy_pad %t, %bgs, {%c1, %n, %c0, %c0} : !ascendc.local_tensor<f16>, !ascendc.global_tensor<f16>
    ascendc.enque %q, %t : !ascendc.tque<VECIN, 1>, !ascendc.local_tensor<f16>
    %td = ascendc.deque %q : !ascendc.tque<VECIN, 1> -> !ascendc.local_tensor<f16>
    %scratch = ascendc.tbuf_get %buf : !ascendc.tbuf<VECCALC> -> !ascendc.local_tensor<f32>
    ascendc.cast %scratch, %td, CAST_NONE, %n : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f16>
    ascendc.free_tensor %q, %td : !ascendc.tque<VECIN, 1>, !ascendc.local_tensor<f16>
    ascendc.pipe_barrier PIPE_V
    %ys = ascendc.subview %y[%c0] : !ascendc.local_tensor<f32>
    ascendc.set_flag V_MTE3, %c0
    ascendc.wait_flag V_MTE3, %c0
    %ogs = ascendc.subview %og[%off] : !ascendc.global_tensor<f32>
    // scalar arithmetic and structured control flow
    %d = arith.subi %nb, %bid : index
    %q1 = arith.divui %d, %c3 : index
    %r1 = arith.remsi %d, %c3 : index
    %cd = arith.ceildivsi %d, %c3 : index
    %fd = arith.floordivsi %d, %c3 : index
    %mx = arith.maxsi %q1, %r1 : index
    %mn = arith.minsi %cd, %fd : index
    %cmp = arith.cmpi ult, %mx, %mn : index
    %i32v = arith.index_cast %mx : index to i32
    %fv = arith.sitofp %i32v : i32 to f32
    %g = arith.mulf %fv, %f : f32
    %sel = arith.select %cmp, %g, %f : f32
    %last = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %c0) -> (index) {
      %nxt = arith.addi %acc, %i : index
      scf.yield %nxt : index
    }
    %len = scf.if %cmp -> (index) {
      ascendc.data_copy %ogs, %ys, %n : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>
      scf.yield %n : index
    } else {
      %bytes = arith.muli %last, %n : index
      ascendc.data_copy_pad %ogs, %ys, {%c1, %bytes, %c0, %c0} : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>
      scf.yield %bytes : index
    }
    ascendc.pipe_barrier PIPE_ALL
    func.return
  }
  func.func @all(%a: memref<1024xf32>, %b: memref<1024xf16>, %o: memref<1024xf32>) {
    %tmp = memref.alloc() : memref<1024xf32>
    ascendc.launch @all_k<<<8>>>(%a, %b, %tmp) : memref<1024xf32>, memref<1024xf16>, memref<1024xf32>
    ascendc.launch @all_k<<<8>>>(%tmp, %b, %o) : memref<1024xf32>, memref<1024xf16>, memref<1024xf32>
    func.return
  }
}
