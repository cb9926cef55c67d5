/*
 * pyasc CPU mode: the kernel launch of host/main.cpp. `k<<<blocks, nullptr, stream>>>(args)` becomes
 * PYASC_CPU_LAUNCH(k, blocks, stream, args...): the kernel runs once per block, one block after
 * another, with GetBlockIdx() = 0, 1, ... and GetBlockNum() = blocks. A MIX kernel (it declares
 * KERNEL_TYPE_MIX_AIC_1_2 when it starts) runs per block as the AIC, then as its two AIVs
 * (GetBlockIdx() = 2 * block + GetSubBlockIdx()): the data it hands over through GM is complete by
 * then, and the cross-core flags are counted and must balance when the AI Core ends.
 */
#ifndef PYASC_CPU_LAUNCH_H
#define PYASC_CPU_LAUNCH_H

#include <cstdint>

namespace pyasc_cpu {

void BeginBlock(const char* kernel, uint32_t block, uint32_t blocks);
void EndBlock(const char* kernel);
bool MixKernel();
void BeginAiv(const char* kernel, uint32_t block, uint32_t blocks, int sub);
void EndAiCore(const char* kernel);

template <typename F>
inline void Launch(const char* kernel, uint32_t blocks, F&& body)
{
    for (uint32_t b = 0; b < blocks; ++b) {
        BeginBlock(kernel, b, blocks);
        body();
        EndBlock(kernel);
        if (MixKernel()) {
            for (int sub = 0; sub < 2; ++sub) {
                BeginAiv(kernel, b, blocks, sub);
                body();
                EndBlock(kernel);
            }
            EndAiCore(kernel);
        }
    }
}

}  // namespace pyasc_cpu

#define PYASC_CPU_LAUNCH(kernel, blocks, stream, ...) \
    ((void)(stream), ::pyasc_cpu::Launch(#kernel, (blocks), [&]() { kernel(__VA_ARGS__); }))

#endif  // PYASC_CPU_LAUNCH_H
