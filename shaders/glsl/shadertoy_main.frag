void main() {
    vec4 hf_color = vec4(0.0, 0.0, 0.0, 1.0);  // Shadertoy's (mainImage's colour is inout)
    mainImage(hf_color, gl_FragCoord.xy);  // upper-left origin: the header's
    // a display colour, as shadertoy.com shows it (a NaN as black: clamp leaves it to the GPU)
    vec3 c = clamp(mix(hf_color.rgb, vec3(0.0), isnan(hf_color.rgb)), 0.0, 1.0);
    if (hf_linear_out != 0)
        c = mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(0.04045, c));
    hf_fragColor = vec4(c, 1.0);
    hf_depth = uintBitsToFloat(0x7F800000u);
}
