// A Shadertoy Buffer tab: Buffer A (scenes/glow_bufA.frag) draws the scene, this Image tab
// adds a cheap glow, 32 taps of it in a spiral, to its picture. Both are drawn at every
// sub-frame, so the dot's streak glows along its whole path.
// hfrender render scenes/glow.frag -o glow.mp4
// hfrender: iChannel0 = glow_bufA.frag
void mainImage(out vec4 fragColor, in vec2 fragCoord) {
    vec2 uv = fragCoord / iResolution.xy;
    vec3 scene = texture(iChannel0, uv).rgb;
    vec3 glow = vec3(0.0);
    for (int i = 0; i < 32; i++) {
        float r = 0.16 * sqrt(float(i + 1) / 32.0), a = 2.4 * float(i);  // golden-angle
        vec2 off = r * vec2(cos(a), sin(a)) * vec2(iResolution.y / iResolution.x, 1.0);
        glow += texture(iChannel0, uv + off).rgb * (1.0 - r / 0.17);  // fading outwards
    }
    vec3 col = scene + 0.12 * glow;
    fragColor = vec4(col / (1.0 + col), 1.0);  // soft roll-off: the glow's core stays white-ish
}
