#version 330 core
// Lays the translucent objects (drawn over nothing, linear light, premultiplied) over the
// opaque picture (sRGB codes, premultiplied): layer + under * (1 - layer alpha), in linear
// light. A pixel no translucent object reached keeps its codes exactly.
uniform sampler2D u_under;  // the opaque picture's codes (a copy: this pass writes them)
uniform sampler2D u_layer;
layout(location = 0) out vec4 f_color;

#include "srgb.frag"

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 under = texelFetch(u_under, p, 0);
    vec4 layer = texelFetch(u_layer, p, 0);
    float left = 1.0 - layer.a;
    f_color = layer == vec4(0.0) ? under
        : vec4(hf_encode_srgb(layer.rgb + hf_decode_srgb(under.rgb) * left),
               layer.a + under.a * left);
}
