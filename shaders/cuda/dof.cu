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
    double coc;
    if (isinf(L[1])) {  // focused at infinity: (f/N) * f / s2, as Lens.coc_mm has it
        coc = L[0] * L[2] / s2 / L[3] * L[4];
    } else {
        double rel = isinf(s2) ? 1.0 : fabs(s2 - L[1]) / s2;
        coc = L[0] * rel * L[2] / (L[1] - L[2]) / L[3] * L[4];
    }
    float r = (float)(fmin(coc, L[5]) * 0.5);
    float rr = r * r;
    r2[idx] = rr;
    int d2 = (int)floorf(rr);
    if (d2 > max_d2) d2 = max_d2;
    inv_area[idx] = (float)(1.0 / (double)area_by_d2[d2]);
}

// One of hfrender.dof_composite._fill: the shortfall short_w filled with the light of
// (light, light_w) as far as its weight goes, and no further than cap (far light: the share
// of the pixel's own disk it lies in; what is seen behind: none, the largest float).
__device__ void hf_dof_fill(float* back, float* back_w, float short_w, float light,
                            float light_w, float cap) {
    if (!(light_w > 0.0f && short_w > 1e-4f && cap > 0.0f)) return;
    short_w = fminf(fminf(short_w, light_w), cap);
    *back += short_w * (light / light_w);
    *back_w += short_w;
}

// One channel of hfrender.dof_composite.composite: front over the back light, normalised;
// what the pixel's disk sees past its surface (its shortfall) filled from the far light of
// larger disks (far, far_w: their own spread at the pixel) as far as it covers it and as far
// as it lies within the pixel's own disk (open: not where a nearer object of the depth pass
// hides the pixel's surface and that light with it); then, before the focus plane, from the
// mean of what its disk sees behind it (hid, hid_w) as far as that lies within its disk;
// where the weight still falls short of what its disk gathers inside the picture by more
// than HF_DOF_FILL_FROM, the shortfall taken from what is seen behind (all of it from
// HF_DOF_FILL_FULL); float32 operations in NumPy's order.
__device__ float hf_dof_mix(float front, float front_w, float back, float back_w,
                            float behind, float behind_w, float inside, float far, float far_w,
                            float open, float hid, float hid_w) {
    hf_dof_fill(&back, &back_w, inside - front_w - back_w, far, far_w, open);
    hf_dof_fill(&back, &back_w, inside - front_w - back_w, hid, hid_w, 3.402823466e38f);
    bool seen = behind_w > 0.0f;
    float short_w = seen ? fmaxf(inside - front_w - back_w, 0.0f) : 0.0f;
    float ramp = (short_w - HF_DOF_FILL_FROM) / (HF_DOF_FILL_FULL - HF_DOF_FILL_FROM);
    short_w *= fminf(fmaxf(ramp, 0.0f), 1.0f);
    float fill = behind / (seen ? behind_w : 1.0f);
    float o = (back + short_w * fill) / (back_w + short_w);
    o *= 1.0f - fminf(front_w, 1.0f);
    return o + front / fmaxf(front_w, 1.0f);
}

// The depth-aware gather of hfrender/backends/cpu/dof.py, one thread per pixel, grid z =
// sub-frame, offsets visited in the CPU's order (sorted by distance). offset_d2 and
// offset_d2_near: what a source's disk must reach to cover p behind and in front of the
// focus plane (different for a polygon of an odd number of blades: turned over in front);
// lens: the sub-frames' rows as hf_circle_of_confusion reads them (focus_m at 1).
extern "C" __global__ void hf_defocus(
        const float* lin, const float* depth, const float* r2, const float* inv_area,
        int height, int width, int channels, const int* offsets, const float* offset_d2,
        const float* offset_d2_near, const double* lens, const float* inside,
        const float* seen_top, int n_offsets, float* out) {
    long long pixels = (long long)height * width;
    long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pixels) return;
    long long base = (long long)blockIdx.z * pixels;
    int y = (int)(p / width), x = (int)(p % width);
    float d_p = depth[base + p];
    float near_p = d_p * (1.0f - HF_FRONT_TOLERANCE);
    float far_p = d_p * (1.0f + HF_FRONT_TOLERANCE);
    float r2_p = r2[base + p];
    float focus = (float)lens[6 * (long long)blockIdx.z + 1];  // compared as NumPy does
    const float* reach_p = d_p < focus ? offset_d2_near : offset_d2;
    float front[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    float back[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    float behind[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // the part of back behind p's surface
    float front_w = 0.0f, back_w = 0.0f, behind_w = 0.0f;
    float far[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // behind p with larger disks: their own spread
    float far_w = 0.0f, open = 0.0f;  // open: the share of p's own disk they lie in
    // defocused before the focus plane: sources in focus within its own disk, and those
    // behind it with smaller disks, are what it sees behind (hid), each 1 / its area
    float hid[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    float hid_w = 0.0f;
    float inv_p = inv_area[base + p];
    bool sees = d_p < focus && inv_p < 1.0f;
    for (int o = 0; o < n_offsets; ++o) {
        int qy = y + offsets[2 * o], qx = x + offsets[2 * o + 1];
        if (qy < 0 || qy >= height || qx < 0 || qx >= width) continue;
        long long q = base + (long long)qy * width + qx;
        float q_depth = depth[q];
        if (sees && q != base + p && r2_p >= reach_p[o] &&
            (inv_area[q] == 1.0f || (q_depth > far_p && inv_area[q] > inv_p))) {
            const float* c = lin + q * channels;
            hid_w += inv_p;
            for (int ch = 0; ch < channels; ++ch) {  // colour at most the usual in-focus light
                float v = ch < 3 ? fminf(c[ch], seen_top[blockIdx.z]) : c[ch];
                hid[ch] += v * inv_p;
            }
        }
        if (!(q_depth < near_p) && q_depth > far_p && inv_area[q] < inv_p &&
            r2_p >= reach_p[o])  // far, larger: in p's own disk, whether or not it covers p
            open += inv_p;
        float d2 = q_depth < focus ? offset_d2_near[o] : offset_d2[o];
        if (r2[q] < d2) continue;  // q's disk does not reach p
        bool in_front = q_depth < near_p;
        bool big = !in_front && q_depth > far_p && inv_area[q] < inv_p;
        bool visible = !in_front && !big && (q_depth <= far_p || r2_p >= reach_p[o]);
        float w = inv_area[q];
        const float* c = lin + q * channels;
        if (big) {
            far_w += w;
            for (int ch = 0; ch < channels; ++ch) far[ch] += c[ch] * w;
        } else if (in_front) {
            front_w += w;
            for (int ch = 0; ch < channels; ++ch) front[ch] += c[ch] * w;
        } else if (visible) {
            back_w += w;
            for (int ch = 0; ch < channels; ++ch) back[ch] += c[ch] * w;
            if (q_depth > far_p) {
                behind_w += w;
                for (int ch = 0; ch < channels; ++ch) behind[ch] += c[ch] * w;
            }
        }
    }
    float* o = out + (base + p) * channels;
    for (int ch = 0; ch < channels; ++ch)
        o[ch] = hf_dof_mix(front[ch], front_w, back[ch], back_w, behind[ch], behind_w,
                           inside[base + p], far[ch], far_w, open, hid[ch], hid_w);
}

// ---- The fast method: layers by circle of confusion, disks by FFT (hfrender/dof_layers.py,
// hfrender/backends/cpu/dof_fast.py). The FFTs are CuPy's (cuFFT); these kernels are the
// per-pixel steps around them. Planar sums are (channels + 1, pixels): [sum c * w, sum w].

// Each pixel's layer (-1: in focus) and its share t of the layer's larger disk, from its
// class key (side * area); the light in focus starts the back sums (weight 1: area 1).
extern "C" __global__ void hf_dof_start(
        const float* lin, const int* keys, long long pixels, int channels, int max_area,
        const int* layer_of_key, const float* t_of_key, int* layer, float* t, float* back) {
    long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pixels) return;
    int key = keys[p] + max_area;
    int k = layer_of_key[key];
    layer[p] = k;
    t[p] = t_of_key[key];
    float focus = k < 0 ? 1.0f : 0.0f;
    for (int ch = 0; ch < channels; ++ch) back[ch * pixels + p] = lin[p * channels + ch] * focus;
    back[channels * pixels + p] = focus;
}

// Where each layer's pixels lie in each row: the first and last column of layer k in row y
// at first[k * height + y] and last[k * height + y] (set beforehand to width and -1: a row
// without the layer keeps first > last), for layers 0 .. n_layers - 1, and the pixels in
// focus (layer -1) at k = n_layers. One thread per row, writing once per run of one layer
// along it: what the host reads once a frame to place every layer's FFT windows
// (hfrender/dof_boxes.py).
extern "C" __global__ void hf_dof_spans(
        const int* __restrict__ layer, int height, int width, int n_layers,
        int* __restrict__ first, int* __restrict__ last) {
    long long y = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (y >= height) return;
    const int* row = layer + y * width;
    int run = -2, start = 0;  // -2: no run (past the row's end too)
    for (int x = 0; x <= width; ++x) {
        int k = x < width ? row[x] : -2;
        if (k == run) continue;
        if (run >= -1 && run < n_layers) {  // the run of `run` over start .. x - 1 ends
            long long at = (long long)(run < 0 ? n_layers : run) * height + y;
            if (first[at] > start) first[at] = start;
            last[at] = x - 1;
        }
        run = k;
        start = x;
    }
}

// Layer j's light on its one or two disks, in rows r0 .. r1 of a window of the image (its
// box's rows: rows y0 .., columns x0 .., win_w pixels wide) into zeroed planes (channels + 1,
// grid_h, grid_w) whose corner is the window's: colour * weight and the weight (share / area).
// Frames that share one plan: blockIdx.z is the frame, frame_pixels apart in the image and
// (channels + 1) planes apart in lo and hi (frames, channels + 1, grid_h, grid_w).
extern "C" __global__ void hf_dof_fields(
        const float* lin, const int* layer, const float* t, int j, long long frame_pixels,
        int width, int channels, int y0, int x0, int r0, int r1, int win_w, int grid_h,
        int grid_w, int disks, int area_lo, int area_hi, float* lo, float* hi) {
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (long long)(r1 - r0) * win_w) return;
    long long wy = r0 + e / win_w, wx = e % win_w;
    long long p = (long long)blockIdx.z * frame_pixels + (y0 + wy) * width + x0 + wx;
    if (layer[p] != j) return;
    long long plane = (long long)grid_h * grid_w;
    long long at = (long long)blockIdx.z * (channels + 1) * plane + wy * grid_w + wx;
    for (int d = 0; d < disks; ++d) {
        float share = disks == 2 ? (d == 0 ? 1.0f - t[p] : t[p]) : 1.0f;
        if (!(share > 0.0f)) continue;
        float weight = share / (float)(d == 0 ? area_lo : area_hi);
        float* f = d == 0 ? lo : hi;
        for (int ch = 0; ch < channels; ++ch)
            f[ch * plane + at] = lin[p * channels + ch] * weight;
        f[channels * plane + at] = weight;
    }
}

// Add rows r0 .. r1, columns c0 .. c1 of one inverse FFT over a window (channels + 1,
// win_h, win_w) to the front or back sums (channels + 1, pixels) of each of their pixels
// (behind: to back and to the behind sums) by the role of the pixel's layer (a gather: its
// box alone) (roles[n_layers]: pixels in focus), times the pixel's share of that disk
// (share: 0 all of it, 1 the smaller disk's 1 - t, 2 the larger's t).
// The FFT's rounding is taken out: where the weight is below HF_DOF_NOISE_W of its largest
// magnitude top[channels] (over the window), nothing; colour below HF_DOF_NOISE of its
// channel's top[ch]: zero. With channels 0, a weight alone (the share of a pixel's disk
// that the far light fills, gathered: roles HF_ROLE_FAR, into far). Frames that share one
// plan: blockIdx.z is the frame, frame_pixels apart in the sums (pixels: all the frames'),
// (channels + 1) planes apart in light (frames, channels + 1, win_h, win_w) and top.
extern "C" __global__ void hf_dof_accumulate(
        const float* light, long long pixels, long long frame_pixels, int width, int channels,
        int y0, int x0, int win_h, int win_w, int r0, int r1, int c0, int c1, const int* layer,
        const int* roles, int n_layers, const float* top, const float* t,
        int share, float* front, float* back, float* behind, float* far) {
    long long plane = (long long)win_h * win_w;
    long long e = (long long)r0 * win_w + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (long long)r1 * win_w) return;
    int col = (int)(e % win_w);
    if (col < c0 || col >= c1) return;
    light += (long long)blockIdx.z * (channels + 1) * plane;
    top += (long long)blockIdx.z * (channels + 1);
    if (!(light[channels * plane + e] >= HF_DOF_NOISE_W * top[channels])) return;
    long long p = (long long)blockIdx.z * frame_pixels + (y0 + e / win_w) * width + x0 + col;
    int k = layer[p];
    int role = roles[k < 0 ? n_layers : k];
    if (role != HF_ROLE_FRONT && role != HF_ROLE_BACK && role != HF_ROLE_BEHIND &&
        role != HF_ROLE_FAR) return;
    float* sums = role == HF_ROLE_FRONT ? front : (role == HF_ROLE_FAR ? far : back);
    float s = share == 0 ? 1.0f : (share == 1 ? 1.0f - t[p] : t[p]);
    for (int ch = 0; ch <= channels; ++ch) {
        float v = light[ch * plane + e];
        if (ch < channels && !(fabsf(v) >= HF_DOF_NOISE * top[ch])) v = 0.0f;
        sums[ch * pixels + p] += v * s;
        if (role == HF_ROLE_BEHIND) behind[ch * pixels + p] += v * s;
    }
}

// The exact gather's composite (hf_dof_mix), interleaved (pixels, channels); hid: what
// pixels before the focus plane see behind them (has_hid), planar as the sums.
extern "C" __global__ void hf_dof_composite(
        const float* front, const float* back, const float* behind, const float* inside,
        const float* far, const float* open, int has_far, const float* hid, int has_hid,
        long long pixels, int channels, float* out) {
    long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pixels) return;
    long long w = channels * pixels + p;
    for (int ch = 0; ch < channels; ++ch) {
        long long at = ch * pixels + p;
        out[p * channels + ch] = hf_dof_mix(front[at], front[w], back[at], back[w], behind[at],
                                            behind[w], inside[p], has_far ? far[at] : 0.0f,
                                            has_far ? far[w] : 0.0f,
                                            has_far ? open[p] : 0.0f,
                                            has_hid ? hid[at] : 0.0f,
                                            has_hid ? hid[w] : 0.0f);
    }
}
