// RUN: pyasc-opt %s -p ascendc-merge-launches --split-input-file | filecheck %s

// Two vector kernels launched one after the other, the second reading what the first writes (%y): one launch on
// the larger block count. The second kernel's TPipe becomes the first's (made first in the kernel), reset after
// the first part; the cores meet at SyncAll. The kernel launched on fewer blocks runs under `GetBlockIdx() < 4`
// and reads its block count as 4. The allocation between the launches moves before them; the shared argument %y
// is passed once.
builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @k0(%x: !ascendc.gm_addr, %y: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 8 : i64, ascendc.kernel_type = "aiv_only"} {
    %pipe = ascendc.tpipe : !ascendc.tpipe
    %q = ascendc.tque : !ascendc.tque<VECIN, 1>
    ascendc.init_buffer %pipe, %q num 2 len 1024 : !ascendc.tque<VECIN, 1>
    %c = arith.constant 8 : index
    %yg = ascendc.global_tensor %y size 1024 : !ascendc.global_tensor<f32>
    %t = ascendc.alloc_tensor %q : !ascendc.tque<VECIN, 1> -> !ascendc.local_tensor<f32>
    ascendc.data_copy %yg, %t, %c : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>
    func.return
  }
  func.func @k1(%y: !ascendc.gm_addr, %z: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 4 : i64, ascendc.kernel_type = "aiv_only"} {
    %pipe = ascendc.tpipe : !ascendc.tpipe
    %q = ascendc.tque : !ascendc.tque<VECIN, 1>
    ascendc.init_buffer %pipe, %q num 2 len 2048 : !ascendc.tque<VECIN, 1>
    %n = ascendc.get_block_num : index
    %yg = ascendc.global_tensor %y size 1024 : !ascendc.global_tensor<f32>
    %t = ascendc.alloc_tensor %q : !ascendc.tque<VECIN, 1> -> !ascendc.local_tensor<f32>
    ascendc.data_copy %t, %yg, %n : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
    func.return
  }
  func.func @host(%x: memref<1024xf32>, %z: memref<1024xf32>) {
    %y = memref.alloc() : memref<1024xf32>
    ascendc.launch @k0<<<8>>> (%x, %y) : memref<1024xf32>, memref<1024xf32>
    %w = memref.alloc() : memref<16xf32>
    ascendc.launch @k1<<<4>>> (%y, %z) : memref<1024xf32>, memref<1024xf32>
    func.return
  }
}

// CHECK:      func.func @k0(%x: !ascendc.gm_addr, %y: !ascendc.gm_addr, %z: !ascendc.gm_addr)
// CHECK-SAME:   ascendc.block_dim = 8 : i64
// CHECK-SAME:   ascendc.kernel_type = "mix_aiv_1_0"
// CHECK-NEXT:   %pipe = ascendc.tpipe : !ascendc.tpipe
// CHECK-NEXT:   %q = ascendc.tque : !ascendc.tque<VECIN, 1>
// CHECK-NEXT:   ascendc.init_buffer %pipe, %q num 2 len 1024
// CHECK:        ascendc.data_copy %yg, %t
// CHECK-NEXT:   ascendc.tpipe_reset %pipe
// CHECK-NEXT:   ascendc.sync_all
// CHECK-NEXT:   %{{.*}} = ascendc.get_block_idx : index
// CHECK-NEXT:   %{{.*}} = arith.constant 4 : index
// CHECK-NEXT:   %{{.*}} = arith.cmpi ult
// CHECK-NEXT:   scf.if
// CHECK-NEXT:     %q_1 = ascendc.tque : !ascendc.tque<VECIN, 1>
// CHECK-NEXT:     ascendc.init_buffer %pipe, %q_1 num 2 len 2048
// CHECK-NEXT:     %n = arith.constant 4 : index
// CHECK:          ascendc.data_copy %{{.*}}, %{{.*}}, %n
// CHECK:        func.return
// CHECK-NOT:  func.func @k1
// CHECK:      func.func @host
// CHECK-NEXT:   %y = memref.alloc()
// CHECK-NEXT:   %w = memref.alloc()
// CHECK-NEXT:   ascendc.launch @k0<<<8>>> (%x, %y, %z)
// CHECK-NEXT:   func.return

// -----

// A cube kernel between two vector kernels: nothing merges.
builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @v0(%x: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 8 : i64, ascendc.kernel_type = "aiv_only"} {
    func.return
  }
  func.func @c(%x: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 8 : i64, ascendc.kernel_type = "aic_only"} {
    func.return
  }
  func.func @v1(%x: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 8 : i64, ascendc.kernel_type = "aiv_only"} {
    func.return
  }
  func.func @host(%x: memref<1024xf32>) {
    ascendc.launch @v0<<<8>>> (%x) : memref<1024xf32>
    ascendc.launch @c<<<8>>> (%x) : memref<1024xf32>
    ascendc.launch @v1<<<8>>> (%x) : memref<1024xf32>
    func.return
  }
}

// CHECK:      ascendc.launch @v0<<<8>>> (%x)
// CHECK-NEXT: ascendc.launch @c<<<8>>> (%x)
// CHECK-NEXT: ascendc.launch @v1<<<8>>> (%x)

// -----

// More blocks than the chip's 48 vector cores (SyncAll would hang): left alone. A kernel launched twice in a row
// (kernels without a TPipe: the merged one starts with InitSocState) becomes one launch of both parts; they
// touch no GM, so no SyncAll: the second part follows the first once the core's pipes drained, and the kernel
// stays aiv_only.
builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @big(%x: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 64 : i64, ascendc.kernel_type = "aiv_only"} {
    func.return
  }
  func.func @twice(%x: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 8 : i64, ascendc.kernel_type = "aiv_only"} {
    %b = ascendc.get_block_idx : index
    func.return
  }
  func.func @host(%x: memref<1024xf32>) {
    ascendc.launch @big<<<64>>> (%x) : memref<1024xf32>
    ascendc.launch @twice<<<8>>> (%x) : memref<1024xf32>
    ascendc.launch @twice<<<8>>> (%x) : memref<1024xf32>
    func.return
  }
}

// CHECK:      func.func @twice(%x: !ascendc.gm_addr)
// CHECK-SAME:   ascendc.kernel_type = "aiv_only"
// CHECK-NEXT:   ascendc.init_soc_state
// CHECK-NEXT:   %b = ascendc.get_block_idx : index
// CHECK-NEXT:   ascendc.pipe_barrier PIPE_ALL
// CHECK-NEXT:   %b_1 = ascendc.get_block_idx : index
// CHECK-NEXT:   func.return
// CHECK:      ascendc.launch @big<<<64>>> (%x)
// CHECK-NEXT: ascendc.launch @twice<<<8>>> (%x)
// CHECK-NEXT: func.return

// -----

// Levels: @a copies %x into %t, then @d %t into %v; again into %u and %w. A part runs one level above the highest
// earlier part it depends on: both @a parts in the first level (two reads of the host argument %x need no
// SyncAll), one after the other once the core's pipes drained, then one SyncAll, then both @d parts.
builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @a(%x: !ascendc.gm_addr, %t: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 8 : i64, ascendc.kernel_type = "aiv_only"} {
    %pipe = ascendc.tpipe : !ascendc.tpipe
    %q = ascendc.tque : !ascendc.tque<VECIN, 1>
    ascendc.init_buffer %pipe, %q num 1 len 1024 : !ascendc.tque<VECIN, 1>
    %c = arith.constant 8 : index
    %xg = ascendc.global_tensor %x size 1024 : !ascendc.global_tensor<f32>
    %tg = ascendc.global_tensor %t size 1024 : !ascendc.global_tensor<f32>
    %l = ascendc.alloc_tensor %q : !ascendc.tque<VECIN, 1> -> !ascendc.local_tensor<f32>
    ascendc.data_copy %l, %xg, %c : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
    ascendc.data_copy %tg, %l, %c : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>
    func.return
  }
  func.func @d(%t: !ascendc.gm_addr, %v: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 8 : i64, ascendc.kernel_type = "aiv_only"} {
    %pipe = ascendc.tpipe : !ascendc.tpipe
    %q = ascendc.tque : !ascendc.tque<VECIN, 1>
    ascendc.init_buffer %pipe, %q num 1 len 1024 : !ascendc.tque<VECIN, 1>
    %c = arith.constant 8 : index
    %tg = ascendc.global_tensor %t size 1024 : !ascendc.global_tensor<f32>
    %vg = ascendc.global_tensor %v size 1024 : !ascendc.global_tensor<f32>
    %l = ascendc.alloc_tensor %q : !ascendc.tque<VECIN, 1> -> !ascendc.local_tensor<f32>
    ascendc.data_copy %l, %tg, %c : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
    ascendc.data_copy %vg, %l, %c : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>
    func.return
  }
  func.func @host(%x: memref<1024xf32>) {
    %t = memref.alloc() : memref<1024xf32>
    %u = memref.alloc() : memref<1024xf32>
    %v = memref.alloc() : memref<1024xf32>
    %w = memref.alloc() : memref<1024xf32>
    ascendc.launch @a<<<8>>> (%x, %t) : memref<1024xf32>, memref<1024xf32>
    ascendc.launch @d<<<8>>> (%t, %v) : memref<1024xf32>, memref<1024xf32>
    ascendc.launch @a<<<8>>> (%x, %u) : memref<1024xf32>, memref<1024xf32>
    ascendc.launch @d<<<8>>> (%u, %w) : memref<1024xf32>, memref<1024xf32>
    func.return
  }
}

// CHECK:      func.func @a(%x: !ascendc.gm_addr, %t: !ascendc.gm_addr, %v: !ascendc.gm_addr, %t_1: !ascendc.gm_addr, %v_1: !ascendc.gm_addr)
// CHECK-SAME:   ascendc.kernel_type = "mix_aiv_1_0"
// CHECK:        %tg = ascendc.global_tensor %t size
// CHECK:        ascendc.data_copy %tg, %l
// CHECK-NEXT:   ascendc.pipe_barrier PIPE_ALL
// CHECK-NEXT:   ascendc.tpipe_reset %pipe
// CHECK:        %tg_1 = ascendc.global_tensor %t_1 size
// CHECK:        ascendc.data_copy %tg_1, %l_1
// CHECK-NEXT:   ascendc.tpipe_reset %pipe
// CHECK-NEXT:   ascendc.sync_all
// CHECK:        %vg = ascendc.global_tensor %v size
// CHECK:        ascendc.pipe_barrier PIPE_ALL
// CHECK-NEXT:   ascendc.tpipe_reset %pipe
// CHECK:        %vg_1 = ascendc.global_tensor %v_1 size
// CHECK-NOT:    ascendc.sync_all
// CHECK:        func.return
// CHECK:      func.func @host
// CHECK:        ascendc.launch @a<<<8>>> (%x, %t, %v, %u, %w)
// CHECK-NEXT:   func.return
