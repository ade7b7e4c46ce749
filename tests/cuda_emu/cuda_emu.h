// Just enough CUDA to compile hfrender's kernels as C++ and run them on the CPU:
// the qualifiers vanish, the thread indices are globals set by the runner's loops.
#pragma once
#include <math.h>

#include <cmath>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict

struct dim3 {
    unsigned int x = 1, y = 1, z = 1;
};
inline dim3 blockIdx, threadIdx, blockDim, gridDim;

using std::isinf;
