/*
 * pyasc CPU mode: the kernel launch of host/main.cpp. `k<<<blocks, nullptr, stream>>>(args)` becomes
 * PYASC_CPU_LAUNCH(k, blocks, stream, args...): the kernel runs once per block, one block after
 * another, with GetBlockIdx() = 0, 1, ... and GetBlockNum() = blocks. A MIX kernel (it declares
 * KERNEL_TYPE_MIX_AIC_1_2 when it starts) runs per block as the AIC and, on two threads started then, as its
 * two AIVs (GetBlockIdx() = 2 * block + GetSubBlockIdx()); a CrossCoreWaitFlag blocks until the other side has
 * set the flag, and the flags must balance when the AI Core ends. A kernel that synchronises its blocks (it
 * declares KERNEL_TYPE_MIX_AIV_1_0 and calls SyncAll) runs its blocks at once, each on a thread of its own.
 */
#ifndef PYASC_CPU_LAUNCH_H
#define PYASC_CPU_LAUNCH_H

#include <cstdint>
#include <functional>

namespace pyasc_cpu {

void BeginBlock(const char* kernel, uint32_t block, uint32_t blocks, std::function<void()> body);
void EndBlock(const char* kernel);
void EndAiCore(const char* kernel);
bool EndJoinedBlocks(const char* kernel);
void BlockEnded();

template <typename F>
inline void Launch(const char* kernel, uint32_t blocks, F&& body)
{
    for (uint32_t b = 0; b < blocks; ++b) {
        BeginBlock(kernel, b, blocks, body);
        body();
        EndBlock(kernel);
        EndAiCore(kernel);
        if (EndJoinedBlocks(kernel)) {
            break;  /* a kernel that synchronises its blocks (SyncAll) ran them all at once */
        }
    }
}

}  // namespace pyasc_cpu

#define PYASC_CPU_LAUNCH(kernel, blocks, stream, ...) \
    ((void)(stream), ::pyasc_cpu::Launch(#kernel, (blocks), [&]() { kernel(__VA_ARGS__); }))

#endif  // PYASC_CPU_LAUNCH_H
