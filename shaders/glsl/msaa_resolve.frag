#version 330 core
// Resolves a multisampled sub-frame into its single-sample planes: colour averaged in
// linear light (the samples hold sRGB-encoded, premultiplied colour, as the mesh and
// background shaders write it; with hf_linear_out, linear light already), depth and velocity taken from the nearest sample (a
// pixel on a silhouette moves, and is defocused, with the surface in front).
// The renderer puts HF_SAMPLES, and HF_DEPTH / HF_VELOCITY where it has those planes,
// after the version line.
uniform sampler2DMS u_color;
#ifdef HF_DEPTH
uniform sampler2DMS u_depth;
layout(location = 1) out float f_depth;
#endif
#ifdef HF_VELOCITY
uniform sampler2DMS u_velocity;
layout(location = 2) out vec2 f_velocity;
#endif
layout(location = 0) out vec4 f_color;
uniform int hf_linear_out;  // 1: float planes of linear light (--hdr), averaged as they are

#include "srgb.frag"

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 first = texelFetch(u_color, p, 0);
    vec4 sum = vec4(0.0);
    bool same = true;
    for (int s = 0; s < HF_SAMPLES; ++s) {
        vec4 c = texelFetch(u_color, p, s);
        same = same && c == first;
        sum += hf_linear_out != 0 ? c : vec4(hf_decode_srgb(c.rgb), c.a);
    }
    // a pixel every sample agrees on keeps its value exactly (no round trip through linear)
    vec4 mean = sum / float(HF_SAMPLES);
    f_color = same ? first : hf_linear_out != 0 ? mean : vec4(hf_encode_srgb(mean.rgb), mean.a);
#ifdef HF_DEPTH
    // the nearest sample with a depth in front of the camera: a triangle that covers a
    // pixel in part is shaded once for it, and a rasteriser may interpolate there beyond
    // the triangle (llvmpipe gives a grazing sliver a negative depth)
    int nearest = -1;
    float d = uintBitsToFloat(0x7F800000u);
    for (int s = 0; s < HF_SAMPLES; ++s) {
        float ds = texelFetch(u_depth, p, s).r;
        if (ds > 0.0 && ds < d) { d = ds; nearest = s; }
    }
    f_depth = d;
#ifdef HF_VELOCITY
    f_velocity = nearest < 0 ? vec2(0.0) : texelFetch(u_velocity, p, nearest).rg;
#endif
#endif
}
