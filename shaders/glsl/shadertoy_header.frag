#version 330 core
// GLSL ES 3.00's packHalf2x16 and friends, as on shadertoy.com (a warning where not there)
#extension GL_ARB_shading_language_packing : enable
// Prepended to Shadertoy-style shaders. fragCoord has its origin at the bottom left of
// the picture, as on shadertoy.com; iTime is the sub-frame's time in seconds.
#define HW_PERFORMANCE 1
uniform vec3 iResolution;
uniform float iTime;
uniform float iTimeDelta;
uniform float iFrameRate;
uniform int iFrame;
uniform vec4 iMouse;
uniform vec4 iDate;
uniform vec2 hf_jitter;  // the sub-frame's sub-pixel offset of fragCoord (antialiasing)
uniform int hf_linear_out;  // 1: a float target (--hdr): the display colour decoded to linear light
// gl_FragCoord as the shader's fragCoord (origin at the picture's bottom left), and dFdy
// along the picture's up, as on shadertoy.com: GL's row 0 is read back as the top row. A
// buffer's texture (HF_BUFFER) keeps GL's own: its row 0, fragCoord's bottom, at v = 0
#ifndef HF_BUFFER
layout(origin_upper_left) in vec4 gl_FragCoord;
#define dFdy(p) (-dFdy(p))
#define dFdyFine(p) (-dFdyFine(p))
#define dFdyCoarse(p) (-dFdyCoarse(p))
#endif
layout(location = 0) out vec4 hf_fragColor;
layout(location = 1) out float hf_depth;
// mainImage's colour written out: defined here, before the shader's code, so that no macro
// or function of the shader's own (#define c ..., float step(...)) reaches what it calls
// (was: after the shader's code, a trial: "hfrender's wrapper: syntax error")
void hf_write(vec4 color) {
#ifdef HF_BUFFER
    hf_fragColor = color;  // a buffer's float texture: the colour as it is (shadertoy.com's)
    return;
#endif
    // a display colour, as shadertoy.com shows it (a NaN as black: clamp leaves it to the
    // GPU); into a float target (--hdr on) past 1 too, light past white, its sRGB curve
    // carried on (was clamped there too: a bright streak lost its light, a trial), and
    // no more than a half float holds, 65504x white, as a mesh's (was: up to 3e11, an
    // infinity in an EXR, a trial; the code clipped first, as an infinity's curve is NaN)
    vec3 c = max(mix(color.rgb, vec3(0.0), isnan(color.rgb)), 0.0);
    if (hf_linear_out != 0)
        c = min(mix(c / 12.92, pow((min(c, 65504.0) + 0.055) / 1.055, vec3(2.4)),
                    step(0.04045, c)), 65504.0);
    else
        c = min(c, 1.0);
    hf_fragColor = vec4(c, 1.0);
    hf_depth = uintBitsToFloat(0x7F800000u);
}
