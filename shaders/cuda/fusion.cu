// hfrender fusion kernels.
//
// Compiled by NVRTC (through CuPy's RawModule) for the GPU, and as plain C++ by the test
// emulator (tests/cuda_emu: a compatibility header and a host loop over grid and blocks).
// So: no #include, no shared memory, no __syncthreads; every kernel is extern "C" with a
// descriptive name; every thread guards its own index. The arithmetic mirrors the NumPy
// backend (hfrender/backends/cpu), the reference, step for step.

// The constants shared with Python (HF_MODE_*, HF_FRONT_TOLERANCE, HF_TIE_BIAS,
// HF_INV_GAMMA, HF_ENCODE_INDEX_MAX) are not written here: hfrender/backends/cuda/source.py
// generates their #defines from the Python values and puts them before this file.

__device__ __forceinline__ float hf_clamp(float x, float lo, float hi) {
    return fminf(fmaxf(x, lo), hi);
}

__device__ __forceinline__ float hf_encode_srgb(float x) {
    x = hf_clamp(x, 0.0f, 1.0f);
    return x <= 0.0031308f ? x * 12.92f : powf(x, HF_INV_GAMMA) * 1.055f - 0.055f;
}

// decode one stored value to what is blended: linear light, or code units
template <typename T>
__device__ __forceinline__ float hf_decode(T v, int mode, bool alpha, float top,
                                           const float* __restrict__ lut) {
    if (mode == HF_MODE_SRGB) return alpha ? (float)v * (float)(1.0 / (double)top)
                                           : lut[(long long)v];
    return (float)v;
}

// enc8 (8-bit sRGB only): the CPU's table of code values for linear i / 65535
template <typename T>
__device__ __forceinline__ T hf_encode(float x, int mode, bool alpha, float top,
                                       const unsigned char* __restrict__ enc8) {
    if (mode == HF_MODE_FLOAT) return (T)x;
    if (mode == HF_MODE_CODE) return (T)(hf_clamp(x, 0.0f, top) + (0.5f + HF_TIE_BIAS));
    if (alpha) return (T)(hf_clamp(x, 0.0f, 1.0f) * top + 0.5f);
    if (enc8) return (T)enc8[(int)(hf_clamp(x, 0.0f, 1.0f) * HF_ENCODE_INDEX_MAX + 0.5f)];
    return (T)(hf_encode_srgb(x) * top + 0.5f);
}

// out[k] = encode(sum_i rows[k, i] * decode(frames[starts[k] + i])): banded window weights.
// One thread per stored element (pixel channel) of a frame, grid z = output frame k.
// With use_linear, the blended values come from linear_in (defocused sub-frames) instead
// (a flag, not a null pointer: CuPy passes arrays, and the emulator checks every access).
template <typename T>
__device__ void hf_fuse_windows(const T* __restrict__ frames,
                                const float* __restrict__ linear_in, int use_linear,
                                long long frame_elems,
                                int channels, const long long* __restrict__ starts,
                                const float* __restrict__ rows, int width, int mode, float top,
                                const float* __restrict__ lut,
                                const unsigned char* __restrict__ enc8, T* __restrict__ out) {
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= frame_elems) return;
    int k = blockIdx.z;
    bool alpha = channels == 4 && (e & 3) == 3;
    long long first = starts[k];
    float acc = 0.0f;
    for (int i = 0; i < width; ++i) {
        float w = rows[(long long)k * width + i];
        if (w == 0.0f) continue;
        long long idx = (first + i) * frame_elems + e;
        float v = use_linear ? linear_in[idx]
                             : hf_decode<T>(frames[idx], mode, alpha, top, lut);
        acc += w * v;
    }
    out[(long long)k * frame_elems + e] = hf_encode<T>(acc, mode, alpha, top, enc8);
}

extern "C" __global__ void hf_fuse_windows_u8(
        const unsigned char* frames, const float* linear_in, int use_linear,
        long long frame_elems, int channels, const long long* starts, const float* rows,
        int width, int mode, const float* lut, const unsigned char* enc8, unsigned char* out) {
    hf_fuse_windows<unsigned char>(frames, linear_in, use_linear, frame_elems, channels,
                                   starts, rows, width, mode, 255.0f, lut, enc8, out);
}

extern "C" __global__ void hf_fuse_windows_u16(
        const unsigned short* frames, const float* linear_in, int use_linear,
        long long frame_elems, int channels, const long long* starts, const float* rows,
        int width, int mode, const float* lut, unsigned short* out) {
    hf_fuse_windows<unsigned short>(frames, linear_in, use_linear, frame_elems, channels,
                                    starts, rows, width, mode, 65535.0f, lut, nullptr, out);
}

extern "C" __global__ void hf_fuse_windows_f32(
        const float* frames, const float* linear_in, int use_linear, long long frame_elems,
        int channels, const long long* starts, const float* rows, int width, int mode,
        const float* lut, float* out) {
    hf_fuse_windows<float>(frames, linear_in, use_linear, frame_elems, channels, starts, rows,
                           width, HF_MODE_FLOAT, 1.0f, lut, nullptr, out);
}

// Box windows in O(1) per output frame: each thread walks all `count` outputs of its
// element with a running sum (frames entering are added, frames leaving subtracted), so
// every frame is read twice at most. Integer sums are exact, as on the CPU:
//   code values: sum the code values, bias window/2, divide;
//   8-bit linear light: sum 16-bit linear values (lut16), divide, then the 65536-entry
//   encode table (enc8) - the same tables as the CPU backend, so the results are equal.
extern "C" __global__ void hf_box_running_u8(
        const unsigned char* frames, long long frame_elems, int channels, int count,
        int window, int stride, int linear, const unsigned short* lut16,
        const unsigned char* enc8, unsigned char* out) {
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= frame_elems) return;
    bool alpha = channels == 4 && (e & 3) == 3;
    bool incremental = stride < window;
    unsigned int acc = 0;
    for (int k = 0; k < count; ++k) {
        long long s = (long long)k * stride;
        if (k == 0 || !incremental) {
            acc = (unsigned int)(window / 2);
            for (long long j = s; j < s + window; ++j) {
                unsigned int v = frames[j * frame_elems + e];
                acc += linear ? (alpha ? v * 257u : lut16[v]) : v;
            }
        } else {
            for (long long j = s - stride; j < s; ++j) {
                unsigned int v = frames[j * frame_elems + e];
                acc -= linear ? (alpha ? v * 257u : lut16[v]) : v;
            }
            for (long long j = s - stride + window; j < s + window; ++j) {
                unsigned int v = frames[j * frame_elems + e];
                acc += linear ? (alpha ? v * 257u : lut16[v]) : v;
            }
        }
        unsigned int q = acc / (unsigned int)window;
        unsigned char r;
        if (!linear) r = (unsigned char)q;
        else if (alpha) r = (unsigned char)((q + 128u) / 257u);
        else r = enc8[q];
        out[(long long)k * frame_elems + e] = r;
    }
}

// 16-bit code values: exact 64-bit sums. 16-bit linear light and float32: double sums of
// the decoded values, mean rounded to float32 and encoded (as the CPU's _box_float).
template <typename T>
__device__ void hf_box_running(const T* __restrict__ frames, long long frame_elems,
                               int channels, int count, int window, int stride, int mode,
                               float top, const float* __restrict__ lut, T* __restrict__ out) {
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= frame_elems) return;
    bool alpha = channels == 4 && (e & 3) == 3;
    bool incremental = stride < window;
    bool exact = mode == HF_MODE_CODE;
    unsigned long long iacc = 0;
    double facc = 0.0;
    for (int k = 0; k < count; ++k) {
        long long s = (long long)k * stride;
        long long add0 = s, add1 = s + window, sub0 = 0, sub1 = 0;
        bool fresh = k == 0 || !incremental;
        // light past HF_RUNNING_LIMIT leaves by a fresh sum: a double keeps 2^-53 of it, and
        // its subtraction would take the dim light beside it along (the CPU's _box_float)
        for (long long j = s - stride; !fresh && !exact && j < s; ++j)
            fresh = !(fabs((double)hf_decode<T>(frames[j * frame_elems + e], mode, alpha, top,
                                                lut)) < HF_RUNNING_LIMIT);  // a NaN too
        if (fresh) {
            iacc = (unsigned long long)(window / 2);
            facc = 0.0;
        } else {
            sub0 = s - stride; sub1 = s; add0 = s - stride + window;
        }
        for (long long j = sub0; j < sub1; ++j) {
            T v = frames[j * frame_elems + e];
            if (exact) iacc -= (unsigned long long)v;
            else facc -= (double)hf_decode<T>(v, mode, alpha, top, lut);
        }
        for (long long j = add0; j < add1; ++j) {
            T v = frames[j * frame_elems + e];
            if (exact) iacc += (unsigned long long)v;
            else facc += (double)hf_decode<T>(v, mode, alpha, top, lut);
        }
        T r;
        if (exact) r = (T)(iacc / (unsigned long long)window);
        else r = hf_encode<T>((float)(facc * (1.0 / (double)window)), mode, alpha, top, nullptr);
        out[(long long)k * frame_elems + e] = r;
    }
}

extern "C" __global__ void hf_box_running_u16(
        const unsigned short* frames, long long frame_elems, int channels, int count,
        int window, int stride, int mode, const float* lut, unsigned short* out) {
    hf_box_running<unsigned short>(frames, frame_elems, channels, count, window, stride, mode,
                                   65535.0f, lut, out);
}

extern "C" __global__ void hf_box_running_f32(
        const float* frames, long long frame_elems, int channels, int count, int window,
        int stride, int mode, const float* lut, float* out) {
    hf_box_running<float>(frames, frame_elems, channels, count, window, stride, HF_MODE_FLOAT,
                          1.0f, lut, out);
}

// Decode every frame of a hyperframe to float (linear light or code units); grid z = frame.
template <typename T>
__device__ void hf_decode_frames(const T* __restrict__ frames, long long frame_elems,
                                 int channels, int mode, float top,
                                 const float* __restrict__ lut, float* __restrict__ out) {
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= frame_elems) return;
    long long idx = (long long)blockIdx.z * frame_elems + e;
    bool alpha = channels == 4 && (e & 3) == 3;
    out[idx] = hf_decode<T>(frames[idx], mode, alpha, top, lut);
}

extern "C" __global__ void hf_decode_frames_u8(
        const unsigned char* frames, long long frame_elems, int channels, int mode,
        const float* lut, float* out) {
    hf_decode_frames<unsigned char>(frames, frame_elems, channels, mode, 255.0f, lut, out);
}

extern "C" __global__ void hf_decode_frames_u16(
        const unsigned short* frames, long long frame_elems, int channels, int mode,
        const float* lut, float* out) {
    hf_decode_frames<unsigned short>(frames, frame_elems, channels, mode, 65535.0f, lut, out);
}

extern "C" __global__ void hf_decode_frames_f32(
        const float* frames, long long frame_elems, int channels, int mode, const float* lut,
        float* out) {
    hf_decode_frames<float>(frames, frame_elems, channels, HF_MODE_FLOAT, 1.0f, lut, out);
}
