// hfrender motion-blur reconstruction kernels: the motion between sub-frames, from their
// velocity and depth. Step for step as hfrender/backends/cpu/reconstruct.py (the reference;
// its float64 sums over the times in another order, exact but at extreme ranges),
// driven by hfrender/backends/cuda/reconstruct.py; the same rules as fusion.cu (no
// #include, no shared memory, extern "C", every thread guards its own index).
//
// Per half-cell and chunk of intermediate times ("times" below, grid over time x pixel):
//   hf_rc_splat      every moving pixel of a source lands on round(q - shift + v * dt) (shift:
//                    its sub-frame's antialiasing offset, as its picture moved): atomicMin of
//                    its key (depth | candidate) into the z-buffer of (time, target pixel)
//   hf_rc_resolve    the winner of each (time, pixel), or -1: none, or behind the base
//   hf_rc_ties       the landings at a winner's depth, of its source, with other
//                    velocities: its rivals, blended with it (recon_ties.py)
//   hf_rc_border     a pixel nothing landed on takes a neighbour's winner (left, right, up,
//                    down) whose surface is in front of the base: recon_layer.borders
//   hf_rc_accumulate per pixel channel, sum of (shown - base colour) over the times (the
//                    winners, then the borders), into a double sum: shown is the winner's
//                    source's moving layer sampled bilinearly where the pixel was at the
//                    source's time, over the base (recon_layer.samples); from inside its
//                    surface, a winner's colour alone (recon_layer.resampled)
// and per cell: hf_rc_base (what a pixel shows before any splat), hf_rc_fill (a hole's
// colour: its still neighbours behind its surface) and hf_rc_cell_add (the half-cell's
// mean, weighted by its length, added to the cell's picture).

// an unsigned key that orders as the float: the smallest depth first (-0 as +0)
__device__ __forceinline__ unsigned int hf_rc_order(float d) {
    unsigned int b = __float_as_uint(d == 0.0f ? 0.0f : d);
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

__device__ __forceinline__ float hf_rc_depth(unsigned long long key) {
    unsigned int k = (unsigned int)(key >> 32);
    return __uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
}

#define HF_RC_NONE 0xffffffffffffffffull

// where source pixel p lands at dt (NumPy's _targets), or -1: velocity (H, W, 2) as
// (vx, vy), positions in double, rint, on the output's pixels (the source's antialiasing
// shift (sy, sx) taken off). The neighbour (source 1) lands only where the base is a hole,
// or anywhere for a pixel that lay past the frame's outer pixel centres at own's time
// (`back`: own's time less the source's; own's pixels: its shift (oy, ox) put back)
__device__ __forceinline__ long long hf_rc_target(
        const float* velocity, const unsigned char* moving, const unsigned char* holes,
        double dt, int height, int width, int source, double back, double sy, double sx,
        double oy, double ox, long long p) {
    if (!moving[p]) return -1;
    long long y = p / width, x = p - y * width;
    double py = (double)y - sy, px = (double)x - sx;
    double ty = rint(py + (double)velocity[2 * p + 1] * dt);
    double tx = rint(px + (double)velocity[2 * p] * dt);
    if (!(ty >= 0.0 && ty < (double)height && tx >= 0.0 && tx < (double)width)) return -1;
    long long q = (long long)ty * width + (long long)tx;
    if (source && !holes[q]) {
        double ay = py + (double)velocity[2 * p + 1] * back + oy;  // not past the outer
        double ax = px + (double)velocity[2 * p] * back + ox;  // pixel centres: own saw it
        if (ay >= 0.0 && ay <= height - 1.0 && ax >= 0.0 && ax <= width - 1.0) return -1;
    }
    return q;
}

// NumPy's _splat, one source: each moving pixel's key atomicMin-ed where it lands
// (hf_rc_target; holes: hf_rc_base's, the sky is at infinite depth too, but no hole)
extern "C" __global__ void hf_rc_splat(
        const float* velocity, const float* depth, const unsigned char* moving,
        const unsigned char* holes, const double* dts, int times, int height, int width,
        int source, double back, double sy, double sx, double oy, double ox,
        long long* keys_raw) {
    long long hw = (long long)height * width;
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (long long)times * hw) return;
    long long m = e / hw, p = e - m * hw;
    long long q = hf_rc_target(velocity, moving, holes, dts[m], height, width, source, back,
                               sy, sx, oy, ox, p);
    if (q < 0) return;
    unsigned long long key = ((unsigned long long)hf_rc_order(depth[p]) << 32)
                             | (unsigned long long)(source * hw + p);
    unsigned long long* keys = (unsigned long long*)keys_raw;
    atomicMin(keys + m * hw + q, key);
}

// recon_ties.rivals: a source's landing at the depth of the winner of its pixel and time
// (hf_rc_resolve's), of the winner's source, with another velocity, is linked into that
// entry's list of rivals (head: the entry's first, -1 none; next: each slot's next; a
// slot is source * times * hw + time * hw + pixel); hf_rc_accumulate blends them
extern "C" __global__ void hf_rc_ties(
        const float* velocity, const float* depth, const unsigned char* moving,
        const unsigned char* holes, const double* dts, int times, int height, int width,
        int source, double back, double sy, double sx, double oy, double ox,
        const long long* keys_raw, const int* win, int* head, int* next) {
    long long hw = (long long)height * width;
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (long long)times * hw) return;
    long long m = e / hw, p = e - m * hw;
    long long q = hf_rc_target(velocity, moving, holes, dts[m], height, width, source, back,
                               sy, sx, oy, ox, p);
    if (q < 0) return;
    long long at = m * hw + q;
    long long lead = win[at];
    if (lead < 0 || lead == source * hw + p || (lead >= hw) != (source == 1)) return;
    unsigned long long key = ((const unsigned long long*)keys_raw)[at];
    if ((unsigned int)(key >> 32) != hf_rc_order(depth[p])) return;
    long long l = lead - source * hw;
    if (velocity[2 * l] == velocity[2 * p] && velocity[2 * l + 1] == velocity[2 * p + 1]) return;
    int slot = (int)(source * times * hw + e);
    next[slot] = atomicExch(head + at, slot);
}

// the winner's candidate id where a surface landed at least as near as the base, else -1
extern "C" __global__ void hf_rc_resolve(
        const long long* keys_raw, const float* base_depth, int times, long long hw,
        int* win) {
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (long long)times * hw) return;
    unsigned long long key = ((const unsigned long long*)keys_raw)[e];
    int r = -1;
    if (key != HF_RC_NONE && hf_rc_depth(key) <= base_depth[e % hw])
        r = (int)(key & 0xffffffffull);
    win[e] = r;
}

// recon_layer.borders: left, right, up, down; the first landing whose surface is in front
// of what the pixel shows (its base): the index of its entry; -1 where the pixel has its
// own winner or none borders
extern "C" __global__ void hf_rc_border(
        const long long* keys_raw, const int* win, const float* base_depth, int times,
        int height, int width, int* border) {
    long long hw = (long long)height * width;
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (long long)times * hw) return;
    border[e] = -1;
    if (win[e] >= 0) return;
    const unsigned long long* keys = (const unsigned long long*)keys_raw;
    long long p = e % hw, y = p / width, x = p - y * width;
    float base = base_depth[p];
    long long nb[4] = {e - 1, e + 1, e - width, e + width};
    bool inside[4] = {x > 0, x < width - 1, y > 0, y < height - 1};
    for (int i = 0; i < 4; ++i) {
        if (inside[i] && win[nb[i]] >= 0 && hf_rc_depth(keys[nb[i]]) < base) {
            border[e] = (int)nb[i];
            return;
        }
    }
}

// recon_layer.samples, channel c of what target pixel p shows of source pixel q (its
// sub-frame's lin (H, W, C), moving (H, W) and velocity (H, W, 2) as (vx, vy)), dt seconds
// after that sub-frame's time: the moving layer (colour * mask, the mask) bilinear at
// p - v(q) * dt + shift (the sub-frame's antialiasing shift, (sy, sx): onto its pixels;
// empty past the frame's edges, half a pixel beyond the outer centres), over
// base; float32 operations in NumPy's order. inner (a landing from inside its surface,
// recon_layer.resampled): the colour alone
__device__ __forceinline__ float hf_rc_shown(const float* __restrict__ lin,
                                             const unsigned char* __restrict__ moving,
                                             const float* __restrict__ velocity, double dt,
                                             double shift_y, double shift_x,
                                             int height, int width, int channels, long long q,
                                             long long p, int c, float base, bool inner) {
    long long ty = p / width, tx = p - ty * width;
    double sy = (double)ty - (double)velocity[2 * q + 1] * dt + shift_y;
    double sx = (double)tx - (double)velocity[2 * q] * dt + shift_x;
    float seen = sy >= -0.5 && sy <= height - 0.5 && sx >= -0.5 && sx <= width - 0.5;
    sy = fmin(fmax(sy, 0.0), height - 1.0);
    sx = fmin(fmax(sx, 0.0), width - 1.0);
    long long y0 = (long long)floor(sy), x0 = (long long)floor(sx);
    long long y1 = y0 + 1 < height ? y0 + 1 : height - 1;
    long long x1 = x0 + 1 < width ? x0 + 1 : width - 1;
    float wy = (float)(sy - (double)y0), wx = (float)(sx - (double)x0);
    long long at[4] = {y0 * width + x0, y0 * width + x1, y1 * width + x0, y1 * width + x1};
    float weight[4] = {(1.0f - wy) * (1.0f - wx), (1.0f - wy) * wx, wy * (1.0f - wx), wy * wx};
    float colour = 0.0f, alpha = 0.0f;
    if (inner) {  // recon_layer.resampled: every tap is the surface, the colour alone
        for (int i = 0; i < 4; ++i) colour = colour + lin[at[i] * channels + c] * weight[i];
        return colour;
    }
    for (int i = 0; i < 4; ++i) {
        float mask = (float)moving[at[i]];
        colour = colour + (lin[at[i] * channels + c] * mask) * (weight[i] * seen);
        alpha = alpha + mask * (weight[i] * seen);
    }
    return colour + (1.0f - alpha) * base;
}

// recon_ties.distinct: add candidate `id` (source * hw + pixel) to a row's `ids` (`n` of
// them; the first, the row's lead, always stays) unless one with its velocity is there (they
// show the same velocity: the smaller id stays, as on the CPU, where it says whether the
// sample is from inside its surface). The others are kept in (vy, vx) order; past
// HF_RC_RIVALS the largest leaves: the lead and the HF_RC_RIVALS - 1 smallest other
// velocities, as the CPU keeps, whatever order the candidates come in (hf_rc_ties' lists are
// built in the order threads ran; was: the first HF_RC_RIVALS of a list)
__device__ __forceinline__ void hf_rc_keep(int id, const float* velocity, long long hw,
                                           int* ids, int* n) {
    long long q = id < hw ? id : id - hw;
    float vy = velocity[2 * q + 1], vx = velocity[2 * q];
    int at = *n;  // its place among ids[1..n)
    for (int i = 0; i < *n; ++i) {
        long long r = ids[i] < hw ? ids[i] : ids[i] - hw;
        float ry = velocity[2 * r + 1], rx = velocity[2 * r];
        if (ry == vy && rx == vx) {
            if (i > 0 && id < ids[i]) ids[i] = id;
            return;
        }
        if (i > 0 && at == *n && (vy < ry || (vy == ry && vx < rx))) at = i;
    }
    if (at >= HF_RC_RIVALS) return;  // larger than every one kept, and no room
    int last = *n < HF_RC_RIVALS ? (*n)++ : HF_RC_RIVALS - 1;  // full: the largest leaves
    for (int i = last; i > at; --i) ids[i] = ids[i - 1];
    ids[at] = id;
}

// an entry's winner and its rivals (hf_rc_ties' list) into a row's distinct candidates
__device__ __forceinline__ void hf_rc_keep_entry(long long at, const int* win, const int* head,
                                                 const int* next, const float* velocity,
                                                 long long hw, long long span, int* ids,
                                                 int* n) {
    hf_rc_keep(win[at], velocity, hw, ids, n);
    for (int slot = head[at]; slot >= 0; slot = next[slot]) {
        long long source = slot / span;
        hf_rc_keep((int)(source * hw + slot % hw), velocity, hw, ids, n);
    }
}

// acc[p, c] += sum over the chunk's times of (shown - base): the winners, then the borders
// (candidate ids: source * hw + pixel, own sub-frame's pixels first; inner: recon_layer.inner
// of each source; dts: per time, tau less the source's time; shifts: own's y, x, then the
// other's, their antialiasing shifts). A winner with rivals (hf_rc_ties), and a border
// beside landings at the depth of the one it takes (of its source), shows the mean of what
// their distinct velocities show (recon_ties.blend: float32 values, a double sum)
extern "C" __global__ void hf_rc_accumulate(
        const int* win, const int* border, const long long* keys_raw, const int* head,
        const int* next, const float* own_lin, const unsigned char* own_moving,
        const unsigned char* own_inner, const float* own_velocity, const double* own_dts,
        const float* other_lin, const unsigned char* other_moving,
        const unsigned char* other_inner, const float* other_velocity,
        const double* other_dts, const float* base_color, int times, int height, int width,
        int channels, double own_sy, double own_sx, double other_sy, double other_sx,
        double* acc) {
    long long hw = (long long)height * width;
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= hw * channels) return;
    long long p = e / channels;
    int c = (int)(e - p * channels);
    long long py = p / width, px = p - py * width;
    float base = base_color[e];
    const unsigned long long* keys = (const unsigned long long*)keys_raw;
    double sum = 0.0;
    for (int pass = 0; pass < 2; ++pass) {
        for (int m = 0; m < times; ++m) {
            long long row = (long long)m * hw + p;
            long long at = pass ? border[row] : (win[row] >= 0 ? row : -1);
            if (at < 0) continue;
            bool mine = win[at] < hw;
            const float* velocity = mine ? own_velocity : other_velocity;
            int ids[HF_RC_RIVALS];
            int n = 0;
            hf_rc_keep_entry(at, win, head, next, velocity, hw, times * hw, ids, &n);
            long long nb[4] = {row - 1, row + 1, row - width, row + width};
            bool inside[4] = {px > 0, px < width - 1, py > 0, py < height - 1};
            for (int i = 0; pass && i < 4; ++i)
                if (inside[i] && nb[i] != at && win[nb[i]] >= 0 && (win[nb[i]] < hw) == mine
                        && keys[nb[i]] >> 32 == keys[at] >> 32)
                    hf_rc_keep_entry(nb[i], win, head, next, velocity, hw, times * hw, ids, &n);
            double total = 0.0;
            float shown = 0.0f;
            for (int i = 0; i < n; ++i) {
                long long q = mine ? ids[i] : ids[i] - hw;
                shown = hf_rc_shown(mine ? own_lin : other_lin,
                                    mine ? own_moving : other_moving, velocity,
                                    mine ? own_dts[m] : other_dts[m],
                                    mine ? own_sy : other_sy, mine ? own_sx : other_sx,
                                    height, width, channels, q, p, c, base,
                                    !pass && (mine ? own_inner : other_inner)[q]);
                total += (double)shown;
            }
            if (n > 1) shown = (float)(total / (double)n);
            sum += (double)shown - (double)base;
        }
    }
    acc[e] += sum;
}

#define HF_RC_UNFILLED 0x7fffffff

// NumPy's _base: the first of `order` (own, then by time) whose pixel is still; else own's
// colour at infinite depth (a hole, marked in `holes`, and its `level` unfilled; 0 others)
extern "C" __global__ void hf_rc_base(
        const float* lin, const float* depth, const unsigned char* moving,
        const long long* order, int count, long long hw, int channels, float* base_color,
        float* base_depth, unsigned char* holes, int* level) {
    long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= hw) return;
    long long src = -1;
    for (int i = 0; i < count && src < 0; ++i)
        if (!moving[order[i] * hw + p]) src = order[i];
    base_depth[p] = src < 0 ? __uint_as_float(0x7f800000u) : depth[src * hw + p];
    holes[p] = src < 0;
    level[p] = src < 0 ? HF_RC_UNFILLED : 0;
    long long from = src < 0 ? order[0] : src;
    for (int c = 0; c < channels; ++c)
        base_color[p * channels + c] = lin[(from * hw + p) * channels + c];
}

// NumPy's fill (recon_fill.py), its pass `ring` (1, 2, ...): a hole not yet filled, and
// `reach` at least `ring` deep, shows the mean of its neighbours (right, left, down, up,
// summed in that order in float) that lie behind its own surface (own's depth) and are no
// hole (level 0) or were filled by an earlier pass (level < ring); one with none waits.
// Only this pass's holes are written, only earlier passes' pixels read: in place.
// `changed` says a pass filled one.
extern "C" __global__ void hf_rc_fill(
        const float* own_depth, const float* base_depth, const int* reach, int ring,
        int height, int width, int channels, int* level, int* changed, float* base_color) {
    long long hw = (long long)height * width;
    long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= hw || level[p] != HF_RC_UNFILLED || reach[p] < ring) return;
    long long x = p % width;
    long long nb[4] = {p + 1, p - 1, p + width, p - width};
    bool inside[4] = {x < width - 1, x > 0, p < hw - width, p >= width};
    bool ok[4];
    int count = 0;
    for (int i = 0; i < 4; ++i) {
        ok[i] = inside[i] && level[nb[i]] < ring && base_depth[nb[i]] > own_depth[p];
        count += ok[i];
    }
    if (!count) return;
    for (int c = 0; c < channels; ++c) {
        float sum = 0.0f;
        for (int i = 0; i < 4; ++i)
            if (ok[i]) sum += base_color[nb[i] * channels + c];
        base_color[p * channels + c] = sum / (float)count;
    }
    level[p] = ring;
    *changed = 1;
}

// picture += part * factor, part the half-cell's mean (base + acc / steps, rounded to
// float) or, with use_acc 0, the sub-frame itself (part_lin)
extern "C" __global__ void hf_rc_cell_add(
        const float* part_lin, const double* acc, const float* base_color, int use_acc,
        int steps, float factor, long long elems, float* picture) {
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= elems) return;
    float part = use_acc ? (float)((double)base_color[e] + acc[e] / (double)steps)
                         : part_lin[e];
    picture[e] = picture[e] + part * factor;
}
