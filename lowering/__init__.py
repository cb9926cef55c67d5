"""Passes (one per file), named pipelines and the Ascend C emitters."""

from collections.abc import Callable

from xdsl.passes import ModulePass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Lazy factories for pyasc's passes and pipelines, keyed by pass name."""

    def lazy(module: str, cls: str):
        def factory():
            import importlib

            return getattr(importlib.import_module(f"{__name__}.{module}"), cls)

        return factory

    table = {
        "asctensor-autodiff": ("asctensor_autodiff", "AscTensorAutodiffPass"),
        "inline-custom-ops": ("inline_custom_ops", "InlineCustomOpsPass"),
        "asctensor-decompose": ("asctensor_decompose", "AscTensorDecomposePass"),
        "asctensor-fold-batch-norm": ("asctensor_fold_batch_norm", "AscTensorFoldBatchNormPass"),
        "asctensor-hoist-constants": ("asctensor_hoist_constants", "AscTensorHoistConstantsPass"),
        "asctensor-fuse": ("asctensor_fuse", "AscTensorFusePass"),
        "asctensor-merge-kernels": ("asctensor_merge_kernels", "AscTensorMergeKernelsPass"),
        "asctensor-fuse-conv-prologue": ("asctensor_conv_prologue", "AscTensorFuseConvProloguePass"),
        "asctensor-fuse-conv-weights": ("asctensor_conv_weights", "AscTensorFuseConvWeightsPass"),
        "tile-elementwise": ("tile_elementwise", "TileElementwisePass"),
        "tile-movement": ("tile_movement", "TileMovementPass"),
        "asctensor-fuse-matmul": ("asctensor_fuse_matmul", "AscTensorFuseMatmulPass"),
        "asctensor-sink-transposes": ("asctensor_sink_transposes", "AscTensorSinkTransposesPass"),
        "tile-matmul": ("tile_matmul", "TileMatmulPass"),
        "tile-mix": ("tile_mix", "TileMixPass"),
        "tile-conv-prologue": ("tile_conv_prologue", "TileConvProloguePass"),
        "tile-im2col": ("tile_im2col", "TileIm2colPass"),
        "tile-pool": ("tile_pool", "TilePoolPass"),
        "bufferize-cube": ("bufferize_cube", "BufferizeCubePass"),
        "host-to-gm": ("host_to_gm", "HostToGmPass"),
        "bufferize": ("bufferize", "BufferizePass"),
        "plan-memory": ("plan_memory", "PlanMemoryPass"),
        "insert-sync": ("insert_sync", "InsertSyncPass"),
        "ascendc-insert-sync": ("ascendc_insert_sync", "AscendCInsertSyncPass"),
        "ascendc-alloc-event-ids": ("ascendc_alloc_event_ids", "AscendCAllocEventIdsPass"),
        "ascendc-merge-launches": ("ascendc_merge_launches", "AscendCMergeLaunchesPass"),
        "convert-ascbuf-to-ascendc": ("to_ascendc", "ToAscendCPass"),
        "to-tile": ("stages", "ToTile"),
        "to-buf": ("stages", "ToBuf"),
        "to-ascendc": ("stages", "ToAscendC"),
        "compile": ("stages", "Compile"),
    }
    return {name: lazy(mod, cls) for name, (mod, cls) in table.items()}
