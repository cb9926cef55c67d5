/*
 * pyasc's syntax-check stub of "kernel_operator.h".
 *
 * It declares exactly the subset of the Ascend C API that pyasc's emitter prints, with the
 * signatures of the Ascend C documentation (basic_api, count form), so that emitted kernels can
 * be checked with `g++ -std=c++17 -fsyntax-only -I<this dir>`. It has no implementation and is
 * never used for a real build: on a machine with CANN, kernels include CANN's own header.
 *
 * CPU mode: with -DPYASC_CPU and the folder of pyasc's CPU implementation on the include path,
 * the same declarations get sequential host-memory definitions (pyasc_cpu_state.h adds the data
 * members through the PYASC_CPU_*_STATE hooks below, pyasc_cpu_impl.h defines every function),
 * so the declarations here are the single source of the signatures for both uses.
 */
#ifndef PYASC_KERNEL_OPERATOR_STUB_H
#define PYASC_KERNEL_OPERATOR_STUB_H

#if defined(__CCE__) || defined(__CCE_AICORE__)
#error "this is pyasc's g++ syntax-check stub; build kernels against CANN's kernel_operator.h"
#endif

#include <cstddef>
#include <cstdint>

#if defined(PYASC_CPU)
#include "pyasc_cpu_state.h"
#else
#define PYASC_CPU_HALF_STATE
#define PYASC_CPU_GLOBAL_TENSOR_STATE
#define PYASC_CPU_LOCAL_TENSOR_STATE
#define PYASC_CPU_TQUE_STATE
#define PYASC_CPU_TBUF_STATE
#define PYASC_CPU_TPIPE_STATE
#endif

/* Device keywords of the bisheng compiler mean nothing to g++. */
#define __global__
#define __aicore__
#define __gm__
#define GM_ADDR __gm__ uint8_t*

/* Scalar types of the device: 16-bit floats stored as bits, convertible from and to float. */
struct half {
    uint16_t bits = 0;
    half() = default;
    half(float value);
    operator float() const;
    PYASC_CPU_HALF_STATE
};

struct bfloat16_t {
    uint16_t bits = 0;
    bfloat16_t() = default;
    bfloat16_t(float value);
    operator float() const;
    PYASC_CPU_HALF_STATE
};

/* Pipes, for PipeBarrier<PIPE_X>() (global, as in CANN's headers). */
enum pipe_t {
    PIPE_S = 0,
    PIPE_V,
    PIPE_M,
    PIPE_MTE1,
    PIPE_MTE2,
    PIPE_MTE3,
    PIPE_ALL,
    PIPE_FIX = 10,
};

/* Fixpipe quantisation modes (global, as in CANN's headers). */
enum QuantMode_t {
    NoQuant = 0,
    F322F16,
    F322BF16,
    DEQF16,
    VDEQF16,
    QF322B8_PRE,
    VQF322B8_PRE,
    REQ8,
    VREQ8,
};

namespace AscendC {

enum class TPosition : uint8_t {
    GM,
    A1,
    A2,
    B1,
    B2,
    C1,
    C2,
    CO1,
    CO2,
    VECIN,
    VECOUT,
    VECCALC,
    LCM = VECCALC,
    SPM,
    SHM = SPM,
    TSCM,
    C2PIPE2GM,
    C2PIPE2LOCAL,
    MAX,
};

enum class HardEvent : uint8_t {
    MTE2_MTE1,
    MTE1_MTE2,
    MTE1_M,
    M_MTE1,
    MTE2_V,
    V_MTE2,
    MTE3_V,
    V_MTE3,
    M_V,
    V_M,
    V_V,
    MTE3_MTE1,
    MTE1_MTE3,
    MTE1_V,
    MTE2_M,
    M_MTE2,
    V_MTE1,
    M_FIX,
    FIX_M,
    MTE3_MTE2,
    MTE2_MTE3,
    S_V,
    V_S,
    S_MTE2,
    MTE2_S,
    S_MTE3,
    MTE3_S,
    MTE2_FIX,
    FIX_MTE2,
    FIX_S,
    M_S,
    FIX_MTE3,
    MTE1_FIX,
    FIX_MTE1,
    FIX_FIX,
    MAX,
};

enum class RoundMode {
    CAST_NONE = 0,
    CAST_RINT,
    CAST_FLOOR,
    CAST_CEIL,
    CAST_ROUND,
    CAST_TRUNC,
    CAST_ODD,
};

enum class ReduceOrder {
    ORDER_VALUE_INDEX,
    ORDER_INDEX_VALUE,
    ORDER_ONLY_VALUE,
    ORDER_ONLY_INDEX,
};

enum class CO2Layout : uint8_t {
    NZ = 0,
    ROW_MAJOR,
    COLUMN_MAJOR,
};

struct FixpipeConfig {
    CO2Layout format;
};

constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ};
constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR};
constexpr FixpipeConfig CFG_COLUMN_MAJOR = {CO2Layout::COLUMN_MAJOR};

/* ---- tensors ------------------------------------------------------------------------------- */

template <typename T>
class GlobalTensor {
public:
    __aicore__ GlobalTensor() {}
    __aicore__ void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize);
    __aicore__ void SetGlobalBuffer(__gm__ T* buffer);
    __aicore__ GlobalTensor operator[](const uint64_t offset) const;
    __aicore__ T GetValue(const uint64_t offset) const;
    __aicore__ void SetValue(const uint64_t offset, T value);
    PYASC_CPU_GLOBAL_TENSOR_STATE
};

template <typename T>
class LocalTensor {
public:
    __aicore__ LocalTensor() {}
    /* static tensor programming: a tensor at a logical position, byte address, element count */
    __aicore__ LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize);
    __aicore__ explicit LocalTensor(uint32_t addr);
    __aicore__ LocalTensor operator[](const uint32_t offset) const;
    __aicore__ T GetValue(const uint32_t offset) const;
    template <typename T1>
    __aicore__ void SetValue(const uint32_t index, const T1 value) const;
    __aicore__ uint32_t GetSize() const;
    /* the tensor's address, for the address-list forms of TransDataTo5HD */
    __aicore__ uint64_t GetPhyAddr() const;
    /* the same memory viewed as elements of another type */
    template <typename U>
    __aicore__ LocalTensor<U> ReinterpretCast() const;
    PYASC_CPU_LOCAL_TENSOR_STATE
};

/* ---- TPipe / TQue / TBuf ------------------------------------------------------------------- */

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue {
public:
    template <typename T>
    __aicore__ LocalTensor<T> AllocTensor();
    template <typename T>
    __aicore__ bool EnQue(const LocalTensor<T>& tensor);
    template <typename T>
    __aicore__ LocalTensor<T> DeQue();
    template <typename T>
    __aicore__ void FreeTensor(LocalTensor<T>& tensor);
    PYASC_CPU_TQUE_STATE
};

/* a queue filled at `src` and drained at `dst` (VECIN -> VECOUT: a tile moved in and out without vector work) */
template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind : public TQue<src, depth, mask> {};

template <TPosition pos = TPosition::LCM>
class TBuf {
public:
    template <typename T>
    __aicore__ LocalTensor<T> Get();
    template <typename T>
    __aicore__ LocalTensor<T> Get(uint32_t len);
    PYASC_CPU_TBUF_STATE
};

using TEventID = int8_t;

class TPipe {
public:
    __aicore__ TPipe() {}
    template <class T>
    __aicore__ bool InitBuffer(T& que, uint8_t num, uint32_t len);
    template <TPosition bufPos>
    __aicore__ bool InitBuffer(TBuf<bufPos>& buf, uint32_t len);
    /* an event id of `evt` held until ReleaseEventID (8 per HardEvent, shared with the TQue buffers) */
    template <HardEvent evt>
    __aicore__ TEventID AllocEventID();
    template <HardEvent evt>
    __aicore__ void ReleaseEventID(TEventID id);
    /* gives back every buffer and event id handed out: the TPipe as it was made */
    __aicore__ void Reset();
    PYASC_CPU_TPIPE_STATE
};

/* ---- data movement ------------------------------------------------------------------------- */

struct DataCopyExtParams {
    __aicore__ DataCopyExtParams() {}
    __aicore__ DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn,
                                 const uint32_t dstStrideIn, const uint32_t rsvIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn)
    {
    }
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;
    uint32_t srcStride = 0;
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
};

template <typename T>
struct DataCopyPadExtParams {
    __aicore__ DataCopyPadExtParams() {}
    __aicore__ DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue,
                                    const uint8_t rightPadValue, T padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue)
    {
    }
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = 0;
};

/* GM (ND) -> L1 (NZ) copies; strides as documented: dstNzC0Stride/dstNzNStride in 32 B blocks,
 * the matrix strides in elements. */
struct Nd2NzParams {
    __aicore__ Nd2NzParams() {}
    __aicore__ Nd2NzParams(const uint16_t ndNumIn, const uint16_t nValueIn, const uint16_t dValueIn,
                           const uint16_t srcNdMatrixStrideIn, const uint16_t srcDValueIn,
                           const uint16_t dstNzC0StrideIn, const uint16_t dstNzNStrideIn,
                           const uint16_t dstNzMatrixStrideIn)
        : ndNum(ndNumIn), nValue(nValueIn), dValue(dValueIn), srcNdMatrixStride(srcNdMatrixStrideIn),
          srcDValue(srcDValueIn), dstNzC0Stride(dstNzC0StrideIn), dstNzNStride(dstNzNStrideIn),
          dstNzMatrixStride(dstNzMatrixStrideIn)
    {
    }
    uint16_t ndNum = 0;
    uint16_t nValue = 0;
    uint16_t dValue = 0;
    uint16_t srcNdMatrixStride = 0;
    uint16_t srcDValue = 0;
    uint16_t dstNzC0Stride = 0;
    uint16_t dstNzNStride = 0;
    uint16_t dstNzMatrixStride = 0;
};

template <typename T>
__aicore__ void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& intriParams);

/* L1 (A1/B1: 32 B blocks, MTE2) or L0A/L0B (512 B blocks, MTE1) set to initValue: repeatTimes runs of
 * blockNum blocks, dstGap blocks between runs. */
template <typename T>
struct InitConstValueParams {
    __aicore__ InitConstValueParams() {}
    __aicore__ InitConstValueParams(const uint16_t repeatTimesIn, const uint16_t blockNumIn, const uint16_t dstGapIn,
                                    const T initValueIn)
        : repeatTimes(repeatTimesIn), blockNum(blockNumIn), dstGap(dstGapIn), initValue(initValueIn)
    {
    }
    uint16_t repeatTimes = 0;
    uint16_t blockNum = 0;
    uint16_t dstGap = 0;
    T initValue = 0;
};

template <typename T>
__aicore__ void InitConstValue(const LocalTensor<T>& dst, const InitConstValueParams<T>& initConstValueParams);

template <typename T>
__aicore__ void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count);
template <typename T>
__aicore__ void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count);
template <typename T>
__aicore__ void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count);

template <typename T>
__aicore__ void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                                   const DataCopyExtParams& dataCopyParams,
                                   const DataCopyPadExtParams<T>& padParams);
template <typename T>
__aicore__ void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                                   const DataCopyExtParams& dataCopyParams);

/* ---- vector compute, count form ------------------------------------------------------------ */

#define PYASC_BINARY(NAME)                                                                          \
    template <typename T>                                                                           \
    __aicore__ void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0,             \
                                const LocalTensor<T>& src1, const int32_t& count);
PYASC_BINARY(Add)
PYASC_BINARY(Sub)
PYASC_BINARY(Mul)
PYASC_BINARY(Div)
PYASC_BINARY(Max)
PYASC_BINARY(Min)
PYASC_BINARY(And)
PYASC_BINARY(Or)
#undef PYASC_BINARY

#define PYASC_UNARY(NAME)                                                                           \
    template <typename T>                                                                           \
    __aicore__ void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count);
PYASC_UNARY(Exp)
PYASC_UNARY(Ln)
PYASC_UNARY(Abs)
PYASC_UNARY(Sqrt)
PYASC_UNARY(Rsqrt)
PYASC_UNARY(Reciprocal)
PYASC_UNARY(Relu)
#undef PYASC_UNARY

/* math-library routines with a caller-provided scratch (sharedTmpBuffer) */
#define PYASC_UNARY_SCRATCH(NAME)                                                                   \
    template <typename T, bool isReuseSource = false>                                               \
    __aicore__ void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                      \
                         const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount);
PYASC_UNARY_SCRATCH(Sin)
PYASC_UNARY_SCRATCH(Cos)
PYASC_UNARY_SCRATCH(Tan)
#undef PYASC_UNARY_SCRATCH

#define PYASC_SCALAR(NAME)                                                                          \
    template <typename T, bool isSetMask = true>                                                    \
    __aicore__ void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, \
                                const int32_t& count);
PYASC_SCALAR(Adds)
PYASC_SCALAR(Muls)
PYASC_SCALAR(Maxs)
PYASC_SCALAR(Mins)
PYASC_SCALAR(LeakyRelu)
#undef PYASC_SCALAR

template <typename T>
__aicore__ void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count);

/* dst[i] = firstValue + i (int16_t/half/int32_t/float) */
template <typename T>
__aicore__ void CreateVecIndex(LocalTensor<T> dst, const T& firstValue, uint32_t count);

/* dst[i] = the element of src at byte srcBaseAddr + srcOffset[i] */
template <typename T>
__aicore__ void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                       const uint32_t srcBaseAddr, const uint32_t count);

struct GatherRepeatParams {
    __aicore__ GatherRepeatParams() {}
    __aicore__ GatherRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t dstRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), dstRepStride(dstRepStrideIn) {}
    uint8_t dstBlkStride = 1;
    uint8_t dstRepStride = 8;
};

/* 8 * repeatTime 32 B blocks: block 8r + i of dst (r * dstRepStride + i * dstBlkStride blocks in) from byte
   offset[8r + i] of src0 (uint16_t/uint32_t) */
template <typename T>
__aicore__ void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& offset,
                        const uint8_t repeatTime, const GatherRepeatParams& repeatParams);

struct GatherMaskParams {
    __aicore__ GatherMaskParams() {}
    __aicore__ GatherMaskParams(const uint8_t src0BlockStrideIn, const uint16_t repeatTimesIn,
                                const uint16_t src0RepeatStrideIn, const uint8_t src1RepeatStrideIn)
        : src0BlockStride(src0BlockStrideIn), repeatTimes(repeatTimesIn), src0RepeatStride(src0RepeatStrideIn),
          src1RepeatStride(src1RepeatStrideIn)
    {
    }
    uint8_t src0BlockStride = 1;
    uint16_t repeatTimes = 0;
    uint16_t src0RepeatStride = 8;
    uint8_t src1RepeatStride = 8;
};

/* the elements of src0 a built-in src1Pattern (1-7) selects in every repeat (256 B, or mask elements in counter
   mode), one after another in dst; rsvdCnt: how many */
template <typename T>
__aicore__ void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern,
                           const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                           uint64_t& rsvdCnt);

constexpr int32_t NCHW_CONV_ADDR_LIST_SIZE = 16;

struct TransDataTo5HDParams {
    __aicore__ TransDataTo5HDParams() {}
    __aicore__ TransDataTo5HDParams(const bool dstHighHalfIn, const bool srcHighHalfIn, const uint8_t repeatTimesIn,
                                    const uint16_t dstRepStrideIn, const uint16_t srcRepStrideIn)
        : dstHighHalf(dstHighHalfIn), srcHighHalf(srcHighHalfIn), repeatTimes(repeatTimesIn),
          dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn)
    {
    }
    bool dstHighHalf = false;
    bool srcHighHalf = false;
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0;
    uint16_t srcRepStride = 0;
};

/* 16 x 16 DataBlock transposes: per repeat, destination block j gathers element j of the 16 source blocks
   (16-bit types; 32-bit: blocks 2k, 2k + 1 hold element k of source blocks 0-7, 8-15); addresses from GetPhyAddr */
template <typename T>
__aicore__ void TransDataTo5HD(uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                               const TransDataTo5HDParams& nchwconvParams);

template <typename T, typename U>
__aicore__ void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                            const uint32_t count);

/* ---- comparisons and selection (bit masks: one bit per element, LSB first) ------------------ */

enum class CMPMODE { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

template <typename T, typename U>
__aicore__ void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                        CMPMODE cmpMode, uint32_t count);
template <typename T, typename U>
__aicore__ void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1, CMPMODE cmpMode,
                         uint32_t count);
template <typename T, typename U>
__aicore__ void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                       const LocalTensor<T>& src1, SELMODE selMode, uint32_t count);
template <typename T, typename U>
__aicore__ void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                       T src1, SELMODE selMode, uint32_t count);

/* ---- reductions and broadcasts ------------------------------------------------------------ */

/* level 2 (first `count` elements): dst[0] = the result (ReduceMax/Min with calIndex: dst[1] = its
 * index, as the bits of T); sharedTmpBuffer is the work tensor. */
template <typename T>
__aicore__ void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                          const int32_t count, bool calIndex = 0);
template <typename T>
__aicore__ void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                          const int32_t count, bool calIndex = 0);
template <typename T, bool isSetMask = true>
__aicore__ void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                          const int32_t count);

/* one result per repeat (256 B of src), continuous mask: the first `mask` elements of each repeat */
template <typename T, bool isSetMask = true>
__aicore__ void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                               const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride);
template <typename T, bool isSetMask = true>
__aicore__ void WholeReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                               const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX);
template <typename T, bool isSetMask = true>
__aicore__ void WholeReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                               const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX);
/* the newer name of WholeReduceSum (same parameters) */
template <typename T, bool isSetMask = true>
__aicore__ void RepeatReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                                const int32_t mask, const int32_t dstBlkStride, const int32_t srcBlkStride,
                                const int32_t dstRepStride, const int32_t srcRepStride);

struct BrcbRepeatParams {
    __aicore__ BrcbRepeatParams() {}
    __aicore__ BrcbRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), dstRepStride(dstRepStrideIn)
    {
    }
    uint32_t blockNumber = 8;
    uint16_t dstRepStride = 8;
    uint16_t dstBlkStride = 1;
};

/* each repeat reads 8 consecutive elements of src and fills 8 blocks of 32 B of dst, block j with
 * element j (blocks dstBlkStride apart, repeats dstRepStride blocks apart) */
template <typename T>
__aicore__ void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint8_t repeatTime,
                     const BrcbRepeatParams& repeatParams);

/* ---- cube path ------------------------------------------------------------------------------ */

struct LoadData2DParams {
    __aicore__ LoadData2DParams() {}
    __aicore__ LoadData2DParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn, const uint16_t srcStrideIn,
                                const uint8_t sidIn, const uint16_t dstGapIn, const bool ifTransposeIn,
                                const uint8_t addrModeIn)
        : startIndex(startIndexIn), dstGap(dstGapIn), srcStride(srcStrideIn), ifTranspose(ifTransposeIn),
          repeatTimes(repeatTimesIn), sid(sidIn), addrMode(addrModeIn)
    {
    }
    uint16_t startIndex = 0;
    uint16_t dstGap = 0;
    uint16_t srcStride = 0;
    bool ifTranspose = 0;
    uint8_t repeatTimes = 0;
    uint8_t sid = 0;
    uint8_t addrMode = 0;
};
using LoadData2dParams = LoadData2DParams;

struct LoadData2dTransposeParams {
    __aicore__ LoadData2dTransposeParams() {}
    __aicore__ LoadData2dTransposeParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn,
                                         const uint16_t srcStrideIn, const uint16_t dstGapIn,
                                         const uint16_t dstFracGapIn, const uint8_t addrModeIn)
        : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), dstGap(dstGapIn),
          dstFracGap(dstFracGapIn), addrMode(addrModeIn)
    {
    }
    uint16_t startIndex = 0;
    uint8_t repeatTimes = 0;
    uint16_t srcStride = 0;
    uint16_t dstGap = 0;
    uint16_t dstFracGap = 0;
    uint8_t addrMode = 0;
};

constexpr int32_t PAD_SIZE = 4;

/* Load3Dv2: img2col of an NC1HWC0 feature map in L1 (A1) into L0A (A2) as ZZ; padList = [left, right, top,
 * bottom]. pyasc models channelSize multiples of C0 = 32 B / sizeof(T), enTranspose, enSmallK, filterSizeW/H
 * and fMatrixCtrl false. */
template <typename T>
struct LoadData3DParamsV2 {
    __aicore__ LoadData3DParamsV2()
    {
        for (int32_t i = 0; i < PAD_SIZE; ++i) {
            padList[i] = 0;
        }
    }
    __aicore__ LoadData3DParamsV2(const uint8_t padListIn[PAD_SIZE], const uint16_t l1HIn, const uint16_t l1WIn,
                                  const uint16_t channelSizeIn, const uint16_t kExtensionIn,
                                  const uint16_t mExtensionIn, const uint16_t kStartPtIn, const uint16_t mStartPtIn,
                                  const uint8_t strideWIn, const uint8_t strideHIn, const uint8_t filterWIn,
                                  const uint8_t filterHIn, const uint8_t dilationFilterWIn,
                                  const uint8_t dilationFilterHIn, const bool enTransposeIn, const bool enSmallKIn,
                                  const T padValueIn)
        : l1H(l1HIn), l1W(l1WIn), channelSize(channelSizeIn), kExtension(kExtensionIn), mExtension(mExtensionIn),
          kStartPt(kStartPtIn), mStartPt(mStartPtIn), strideW(strideWIn), strideH(strideHIn), filterW(filterWIn),
          filterH(filterHIn), dilationFilterW(dilationFilterWIn), dilationFilterH(dilationFilterHIn),
          enTranspose(enTransposeIn), enSmallK(enSmallKIn), padValue(padValueIn)
    {
        for (int32_t i = 0; i < PAD_SIZE; ++i) {
            padList[i] = padListIn[i];
        }
    }
    __aicore__ LoadData3DParamsV2(const uint8_t padListIn[PAD_SIZE], const uint16_t l1HIn, const uint16_t l1WIn,
                                  const uint16_t channelSizeIn, const uint16_t kExtensionIn,
                                  const uint16_t mExtensionIn, const uint16_t kStartPtIn, const uint16_t mStartPtIn,
                                  const uint8_t strideWIn, const uint8_t strideHIn, const uint8_t filterWIn,
                                  const uint8_t filterHIn, const uint8_t dilationFilterWIn,
                                  const uint8_t dilationFilterHIn, const bool enTransposeIn, const bool enSmallKIn,
                                  const T padValueIn, const bool filterSizeWIn, const bool filterSizeHIn,
                                  const bool fMatrixCtrlIn)
        : LoadData3DParamsV2(padListIn, l1HIn, l1WIn, channelSizeIn, kExtensionIn, mExtensionIn, kStartPtIn,
                             mStartPtIn, strideWIn, strideHIn, filterWIn, filterHIn, dilationFilterWIn,
                             dilationFilterHIn, enTransposeIn, enSmallKIn, padValueIn)
    {
        filterSizeW = filterSizeWIn;
        filterSizeH = filterSizeHIn;
        fMatrixCtrl = fMatrixCtrlIn;
    }
    uint8_t padList[PAD_SIZE] = {0};
    uint16_t l1H = 0;
    uint16_t l1W = 0;
    uint16_t channelSize = 0;
    uint16_t kExtension = 0;
    uint16_t mExtension = 0;
    uint16_t kStartPt = 0;
    uint16_t mStartPt = 0;
    uint8_t strideW = 1;
    uint8_t strideH = 1;
    uint8_t filterW = 1;
    uint8_t filterH = 1;
    uint8_t dilationFilterW = 1;
    uint8_t dilationFilterH = 1;
    bool enTranspose = false;
    bool enSmallK = false;
    T padValue = 0;
    bool filterSizeW = false;
    bool filterSizeH = false;
    bool fMatrixCtrl = false;
};

struct MmadParams {
    __aicore__ MmadParams() {}
    __aicore__ MmadParams(const uint16_t mIn, const uint16_t nIn, const uint16_t kIn, const bool isBiasIn,
                          const int32_t fmOffsetIn, const bool enSsparseIn, const bool enWinogradAIn,
                          const bool enWinogradBIn)
        : m(mIn), n(nIn), k(kIn), isBias(isBiasIn), fmOffset(fmOffsetIn), enSsparse(enSsparseIn),
          enWinogradA(enWinogradAIn), enWinogradB(enWinogradBIn)
    {
    }
    __aicore__ MmadParams(const uint16_t mIn, const uint16_t nIn, const uint16_t kIn, const uint8_t unitFlagIn,
                          const bool cmatrixSourceIn, const bool cmatrixInitValIn)
        : m(mIn), n(nIn), k(kIn), unitFlag(unitFlagIn), cmatrixSource(cmatrixSourceIn),
          cmatrixInitVal(cmatrixInitValIn)
    {
    }
    uint16_t m = 0;
    uint16_t n = 0;
    uint16_t k = 0;
    bool isBias = false;
    int32_t fmOffset = 0;
    bool enSsparse = false;
    bool enWinogradA = false;
    bool enWinogradB = false;
    uint8_t unitFlag = 0;
    bool kDirectionAlign = false;
    bool cmatrixSource = false;
    bool cmatrixInitVal = true;
};

struct DataCopyParams {
    __aicore__ DataCopyParams() {}
    __aicore__ DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn,
                              const uint16_t dstStrideIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn)
    {
    }
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;
    uint16_t srcStride = 0;
    uint16_t dstStride = 0;
};

struct FixpipeParamsV220 {
    __aicore__ FixpipeParamsV220() {}
    __aicore__ FixpipeParamsV220(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint16_t srcStrideIn,
                                 const uint32_t dstStrideIn, const bool reluEnIn)
        : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn), reluEn(reluEnIn)
    {
    }
    __aicore__ FixpipeParamsV220(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint16_t srcStrideIn,
                                 const uint32_t dstStrideIn, const bool reluEnIn, const QuantMode_t quantPreIn,
                                 const int64_t deqScalarIn, const uint16_t ndNumIn, const uint16_t srcNdStrideIn,
                                 const uint16_t dstNdStrideIn, const uint8_t unitFlagIn)
        : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn), quantPre(quantPreIn),
          deqScalar(deqScalarIn), ndNum(ndNumIn), srcNdStride(srcNdStrideIn), dstNdStride(dstNdStrideIn),
          reluEn(reluEnIn), unitFlag(unitFlagIn)
    {
    }
    uint16_t nSize = 0;
    uint16_t mSize = 0;
    uint16_t srcStride = 0;
    uint32_t dstStride = 0;
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    uint64_t deqScalar = 0;
    uint16_t ndNum = 1;
    uint16_t srcNdStride = 0;
    uint16_t dstNdStride = 0;
    bool reluEn = false;
    uint8_t unitFlag = 0;
    bool isChannelSplit = false;
};

/* L1 -> L0A/L0B, 512 B fractals: repeat r copies fractal startIndex + r * srcStride to fractal
 * r * (dstGap + 1), transposing it when ifTranspose */
template <typename T>
__aicore__ void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& loadDataParams);

/* A1/B1 -> A2/B2, transposed squares: repeat r reads square startIndex + r * srcStride (16x16 elements; 4-byte
 * types: two 16x8 fractals side by side) and writes its transposed fractals at fractal r * (dstGap + 1) and
 * dstFracGap + 1 fractals after it */
template <typename T>
__aicore__ void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                      const LoadData2dTransposeParams& loadDataParams);

/* Load3Dv2: row m = oh * Wo + ow, column k = ((c1 * filterH + kh) * filterW + kw) * C0 + c0 of the img2col
 * matrix of src ([C1][l1H][l1W][C0]), rows mStartPt.. and columns kStartPt.. into dst (L0A) as ZZ fractals */
template <typename T>
__aicore__ void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                         const LoadData3DParamsV2<T>& loadDataParams);

/* L0C (NZ) = [L0C +] L0A (ZZ) x L0B (ZN) */
template <typename T, typename U, typename S>
__aicore__ void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                     const MmadParams& mmadParams);

/* L0C (NZ) = broadcast(bias) + L0A (ZZ) x L0B (ZN), the bias a row in BiasTable (C2) */
template <typename T, typename U, typename S, typename V>
__aicore__ void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                     const LocalTensor<V>& bias, const MmadParams& mmadParams);

/* L1 (C1) -> BiasTable (C2): blockCount bursts of blockLen 64 B units of src, srcStride 32 B blocks and dstStride
 * 64 B units apart; half -> float widens on the way */
template <typename T, typename U>
__aicore__ void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& repeatParams);

/* L0C (NZ) -> GM (ND), with quantisation and ReLU */
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
__aicore__ void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& intriParams);

/* ---- synchronisation and system variables -------------------------------------------------- */

template <HardEvent event>
__aicore__ void SetFlag(int32_t eventID);
template <HardEvent event>
__aicore__ void WaitFlag(int32_t eventID);
template <pipe_t pipe>
__aicore__ void PipeBarrier();

__aicore__ int64_t GetBlockIdx();
__aicore__ int64_t GetBlockNum();
/* resets the core's state; a kernel without a TPipe calls it at entry */
__aicore__ void InitSocState();
/* the order in which the cube produces an Mmad's results: N first (row major) or M first (column major) */
__aicore__ void SetMMRowMajor();
__aicore__ void SetMMColumnMajor();

/* ---- MIX kernels (one AIC and two AIVs per AI Core) ----------------------------------------- */

/* flagId 0..10; mode 2: an AIC's set reaches both AIVs of its AI Core, the AIVs' sets reach the AIC
 * once both have set; a wait blocks while the flag's counter is 0, then takes one */
template <uint8_t modeId, pipe_t pipe>
__aicore__ void CrossCoreSetFlag(uint16_t flagId);
__aicore__ void CrossCoreWaitFlag(uint16_t flagId);
__aicore__ int64_t GetSubBlockIdx();

/* the hard sync of a vector kernel (KERNEL_TYPE_MIX_AIV_1_0): every core of the launch waits here until all have
 * arrived, with everything each issued before done */
template <bool isAIVOnly = true>
__aicore__ void SyncAll();

}  // namespace AscendC

enum KernelType {
    KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIC_1_2, KERNEL_TYPE_MIX_AIC_1_1, KERNEL_TYPE_MIX_AIV_1_0
};
#if defined(PYASC_CPU)
namespace pyasc_cpu {
void SetKernelType(int type);
int CoreType();  /* 0: AIC, 1: AIV */
}  // namespace pyasc_cpu
#define KERNEL_TASK_TYPE_DEFAULT(type) ::pyasc_cpu::SetKernelType(static_cast<int>(type))
#define ASCEND_IS_AIC (::pyasc_cpu::CoreType() == 0)
#define ASCEND_IS_AIV (::pyasc_cpu::CoreType() == 1)
#else
#define KERNEL_TASK_TYPE_DEFAULT(type) ((void)(type))
#define ASCEND_IS_AIC (true)
#define ASCEND_IS_AIV (true)
#endif

#if defined(PYASC_CPU)
#include "pyasc_cpu_impl.h"
#endif

#endif  // PYASC_KERNEL_OPERATOR_STUB_H
