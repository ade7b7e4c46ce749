#version 400 core
// The sun's penumbra at each pixel of a probe sub-frame (hfrender/renderer/penumbra_pass.py,
// for hfrender/engine/penumbra.py): the pixel's point (its depth plane: metres along the
// view axis, inf for sky) taken to the sun's shadow map, the farthest caster depth in the
// 3x3 texels around it (the map's edge texels repeated past it), and the penumbra
// ``behind x 2 tan(light_angle / 2)`` metres shown at the pixel's depth, in output pixels;
// 0 where lit, sky or off the map. In HF_REAL double where the GL has it (4.0 on), as
// NumPy's float64 did it on the map read back; the value written as two floats, hi + lo.
// The pass gives the version line: 400 (doubles, textureGather) where the GL has it, else 330.
#if __VERSION__ >= 400
#define HF_REAL double
#define HF_VEC4 dvec4
#define HF_MAT4 dmat4
#else
#define HF_REAL float
#define HF_VEC4 vec4
#define HF_MAT4 mat4
#endif
uniform sampler2D u_depth;     // the probe's depth plane
uniform sampler2D u_map;       // the sun's map, its compare mode off for this pass
uniform HF_MAT4 u_world;       // view space -> world (the camera's view inverted)
uniform HF_MAT4 u_to_map;      // world -> the map's (s, t, depth 0..1)
uniform HF_VEC4 u_unproject;   // the projection's x and y scales, and their offsets
uniform HF_VEC4 u_sizes;       // the picture's w and h, the map's texels a side
uniform HF_VEC4 u_scales;      // metres of map depth 1, of a texel; 2 tan(angle / 2); px a metre
uniform int u_orthographic;
layout(location = 0) out vec2 f_penumbra;

HF_REAL farthest_around(ivec2 at, int size) {
#if __VERSION__ >= 400  // four 2x2 gathers about its corners (a quarter less time on llvmpipe)
    vec2 corner = vec2(at) / float(size), step = vec2(1.0 / float(size), 0.0);
    vec4 most = max(max(textureGather(u_map, corner), textureGather(u_map, corner + step)),
                    max(textureGather(u_map, corner + step.yx),
                        textureGather(u_map, corner + step.xx)));
    return HF_REAL(max(max(most.x, most.y), max(most.z, most.w)));
#else
    float most = 0.0;
    for (int di = -1; di <= 1; ++di)
        for (int dj = -1; dj <= 1; ++dj)
            most = max(most, texelFetch(u_map, clamp(at + ivec2(dj, di), 0, size - 1), 0).r);
    return HF_REAL(most);
#endif
}

void main() {
    f_penumbra = vec2(0.0);
    float seen = texelFetch(u_depth, ivec2(gl_FragCoord.xy), 0).r;
    if (isinf(seen) || isnan(seen))
        return;
    HF_REAL z = HF_REAL(seen);
    HF_REAL x = HF_REAL(gl_FragCoord.x) * 2.0 / u_sizes.x - 1.0 - u_unproject.z;
    HF_REAL y = HF_REAL(gl_FragCoord.y) * 2.0 / u_sizes.y - 1.0 - u_unproject.w;
    if (u_orthographic == 0) {
        x *= z;
        y *= z;
    }
    HF_VEC4 world = u_world * HF_VEC4(x / u_unproject.x, y / u_unproject.y, -z, 1.0);
    HF_VEC4 map = u_to_map * world;
    if (map.x < 0.0 || map.x >= 1.0 || map.y < 0.0 || map.y >= 1.0)
        return;
    int size = int(u_sizes.z);
    ivec2 at = ivec2(int(map.x * u_sizes.z), int(map.y * u_sizes.z));
    HF_REAL behind = (map.z - farthest_around(at, size)) * u_scales.x;  // metres behind
    if (!(behind > u_scales.y))  // every caster around (a receiver's own slope is no
        return;  // caster: 0 or less in one of the texels around)
    HF_REAL wide = behind * u_scales.z * u_scales.w / (u_orthographic == 0 ? z : 1.0);
    float hi = float(wide);
    f_penumbra = vec2(hi, float(wide - HF_REAL(hi)));
}
