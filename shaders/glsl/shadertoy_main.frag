void main() {
    vec4 color = vec4(0.0, 0.0, 0.0, 1.0);
    // GL's row 0 is read back first and becomes the top row of the picture
    mainImage(color, vec2(gl_FragCoord.x, iResolution.y - gl_FragCoord.y));
    hf_fragColor = vec4(clamp(color.rgb, 0.0, 1.0), 1.0);
    hf_depth = uintBitsToFloat(0x7F800000u);
}
