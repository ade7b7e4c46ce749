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

// the built-ins of shaders/cuda/reconstruct.cu; atomics are plain (threads run one by one)
inline unsigned int __float_as_uint(float x) {
    unsigned int u;
    __builtin_memcpy(&u, &x, sizeof u);
    return u;
}
inline float __uint_as_float(unsigned int u) {
    float x;
    __builtin_memcpy(&x, &u, sizeof x);
    return x;
}
inline unsigned long long atomicMin(unsigned long long* address, unsigned long long val) {
    unsigned long long old = *address;
    if (val < old) *address = val;
    return old;
}
inline int atomicExch(int* address, int val) {
    int old = *address;
    *address = val;
    return old;
}
