// RUN: pyasc-opt %s -p 'compile{sync_style=flags cores=4}' | filecheck %s --check-prefix=FLAGS
// RUN: pyasc-opt %s -p 'compile{tile_size=512 buffers=1}' | filecheck %s --check-prefix=QUEUE1
// RUN: pyasc-opt %s -p 'compile{target=ascend910b4}' | filecheck %s --check-prefix=B4

// pipeline options reach the passes: cores -> block_dim, sync_style -> static tensors and
// flags, tile_size and buffers -> queue depth and buffer size
func.func @s(%x: tensor<8192xf32>, %y: tensor<8192xf32>) -> tensor<8192xf32> {
  %0 = math.exp %x : tensor<8192xf32>
  %1 = arith.mulf %0, %y : tensor<8192xf32>
  func.return %1 : tensor<8192xf32>
}

// FLAGS:       func.func @s_k0({{.*}}) attributes {ascendc.kernel, ascendc.block_dim = 4 : i64, ascendc.kernel_type = "aiv_only"} {
// FLAGS:         %x_buf = ascendc.local_tensor VECIN address 0 size
// FLAGS:         ascendc.set_flag V_MTE2
// FLAGS:         ascendc.wait_flag MTE2_V
// FLAGS:         ascendc.set_flag V_MTE3
// FLAGS-NOT:     ascendc.tque
// FLAGS:         ascendc.pipe_barrier PIPE_ALL
// FLAGS-NEXT:    func.return
// FLAGS:         ascendc.launch @s_k0<<<4>>>

// 8192 / 512 = 16 tiles over at most 48 cores: 16 blocks, queues of depth 1 of 2048 B
// QUEUE1:      attributes {ascendc.kernel, ascendc.block_dim = 16 : i64, ascendc.kernel_type = "aiv_only"}
// QUEUE1:        %xQue = ascendc.tque : !ascendc.tque<VECIN, 1>
// QUEUE1-NEXT:   ascendc.init_buffer %pipe, %xQue num 1 len 2048 : !ascendc.tque<VECIN, 1>
// QUEUE1:        %{{.*}}Que = ascendc.tque : !ascendc.tque<VECOUT, 1>
// QUEUE1-NOT:    ascendc.set_flag
// QUEUE1:        ascendc.launch @s_k0<<<16>>>

// without an asc.target attribute the target option decides (ascend910b4 has 40 vector cores)
// B4:          attributes {ascendc.kernel, ascendc.block_dim = 40 : i64, ascendc.kernel_type = "aiv_only"}
// B4:          ascendc.launch @s_k0<<<40>>>
