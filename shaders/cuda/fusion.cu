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
        if (k == 0 || !incremental) {
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

// Thin-lens circle of confusion of every pixel of every sub-frame (grid z = sub-frame):
// r2 = (CoC radius in pixels)^2 and inv_area = 1 / (whole pixels in that disk), exactly
// as the CPU computes them (double maths, float32 results). lens[6 * z ..] holds
// aperture_mm, focus_m, focal_m, sensor_mm, image_width_px, cap_px for sub-frame z.
extern "C" __global__ void hf_circle_of_confusion(
        const float* depth, long long pixels, const double* lens, const int* area_by_d2,
        int max_d2, float* r2, float* inv_area) {
    long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pixels) return;
    long long idx = (long long)blockIdx.z * pixels + p;
    const double* L = lens + 6 * (long long)blockIdx.z;
    double s2 = (double)depth[idx];
    double rel = isinf(s2) ? 1.0 : fabs(s2 - L[1]) / s2;
    double coc = L[0] * rel * L[2] / (L[1] - L[2]) / L[3] * L[4];
    float r = (float)(fmin(coc, L[5]) * 0.5);
    float rr = r * r;
    r2[idx] = rr;
    int d2 = (int)floorf(rr);
    if (d2 > max_d2) d2 = max_d2;
    inv_area[idx] = (float)(1.0 / (double)area_by_d2[d2]);
}

// The depth-aware gather of hfrender/backends/cpu/dof.py, one thread per pixel, grid z =
// sub-frame, offsets visited in the CPU's order (sorted by distance).
extern "C" __global__ void hf_defocus(
        const float* lin, const float* depth, const float* r2, const float* inv_area,
        int height, int width, int channels, const int* offsets, const float* offset_d2,
        int n_offsets, float* out) {
    long long pixels = (long long)height * width;
    long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pixels) return;
    long long base = (long long)blockIdx.z * pixels;
    int y = (int)(p / width), x = (int)(p % width);
    float d_p = depth[base + p];
    float near_p = d_p * (1.0f - HF_FRONT_TOLERANCE);
    float far_p = d_p * (1.0f + HF_FRONT_TOLERANCE);
    float r2_p = r2[base + p];
    float front[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    float back[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    float front_w = 0.0f, back_w = 0.0f;
    for (int o = 0; o < n_offsets; ++o) {
        int qy = y + offsets[2 * o], qx = x + offsets[2 * o + 1];
        if (qy < 0 || qy >= height || qx < 0 || qx >= width) continue;
        float d2 = offset_d2[o];
        long long q = base + (long long)qy * width + qx;
        if (r2[q] < d2) continue;  // q's disk does not reach p
        float q_depth = depth[q];
        bool in_front = q_depth < near_p;
        bool visible = !in_front && (q_depth <= far_p || r2_p >= d2);
        float w = inv_area[q];
        const float* c = lin + q * channels;
        if (in_front) {
            front_w += w;
            for (int ch = 0; ch < channels; ++ch) front[ch] += c[ch] * w;
        } else if (visible) {
            back_w += w;
            for (int ch = 0; ch < channels; ++ch) back[ch] += c[ch] * w;
        }
    }
    float alpha = fminf(front_w, 1.0f);
    float norm = fmaxf(front_w, 1.0f);
    float* o = out + (base + p) * channels;
    for (int ch = 0; ch < channels; ++ch) {
        float b = back[ch] / back_w * (1.0f - alpha);
        o[ch] = b + front[ch] / norm;
    }
}
