// Depth of field from a depth plane: the thin-lens circle of confusion and the gather of
// hfrender/backends/cpu/dof.py (compiled after fusion.cu, whose helpers it may use).

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
