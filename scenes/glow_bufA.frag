// Buffer A of scenes/glow.frag: a bright dot racing round a figure of eight on a dark
// grid. Values past 1 are kept: a buffer is a float texture, as on shadertoy.com.
void mainImage(out vec4 fragColor, in vec2 fragCoord) {
    vec2 uv = (fragCoord - 0.5 * iResolution.xy) / iResolution.y;
    vec2 grid = abs(fract(uv * 6.0) - 0.5);
    vec3 col = vec3(0.02, 0.03, 0.06) + 0.05 * step(0.46, max(grid.x, grid.y));
    float a = 5.0 * iTime;  // about two screen widths a second
    vec2 p = vec2(0.6 * sin(a), 0.3 * sin(2.0 * a));
    float disc = smoothstep(0.045, 0.035, length(uv - p));
    col += vec3(4.0, 1.6, 0.5) * disc;  // 4x white, orange
    fragColor = vec4(col, 1.0);
}
