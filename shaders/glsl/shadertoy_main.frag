// After the shader's code (its mainImage any signature it has, as on shadertoy.com), each
// macro it defines #undef'd before it (shadertoy.py): only hfrender's own names here
void main() {
    vec4 hf_color = vec4(0.0, 0.0, 0.0, 1.0);  // Shadertoy's (mainImage's colour is inout)
    mainImage(hf_color, gl_FragCoord.xy + hf_jitter);  // (origin: the header's)
    hf_write(hf_color);
}
