#version 330 core
// Lays the translucent objects (drawn over nothing, linear light, premultiplied) over the
// opaque picture (sRGB codes, premultiplied): layer + under * (1 - layer alpha), in linear
// light. A pixel no translucent object reached keeps its codes exactly.
uniform sampler2D u_under;  // the opaque picture's codes (a copy: this pass writes them)
uniform sampler2D u_layer;
layout(location = 0) out vec4 f_color;

vec3 decode_srgb(vec3 c) {
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(0.04045, c));
}

vec3 encode_srgb(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c));
}

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 under = texelFetch(u_under, p, 0);
    vec4 layer = texelFetch(u_layer, p, 0);
    float left = 1.0 - layer.a;
    f_color = layer == vec4(0.0) ? under
        : vec4(encode_srgb(layer.rgb + decode_srgb(under.rgb) * left), layer.a + under.a * left);
}
