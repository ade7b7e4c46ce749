// sRGB's curve both ways, between linear light and the codes 0..1 a picture holds:
// placed by hfrender's shader loader (programs.glsl) where its shaders #include it (a .frag:
// a .glsl file here is a surface shader one may name)
vec3 hf_decode_srgb(vec3 c) {
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(0.04045, c));
}

vec3 hf_encode_srgb(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c));
}
