// A Shadertoy-style shader: a slow plasma with three fast comets.
// hfrender render scenes/plasma.frag -o plasma.mp4   (iTime is each sub-frame's time)
void mainImage(out vec4 fragColor, in vec2 fragCoord) {
    vec2 uv = (fragCoord - 0.5 * iResolution.xy) / iResolution.y;
    float t = iTime;
    float v = sin(uv.x * 6.0 + t) + sin(uv.y * 5.0 - t * 1.3)
            + sin((uv.x + uv.y) * 4.0 + t * 0.7) + sin(length(uv * 7.0) - t * 2.0);
    vec3 col = 0.5 + 0.45 * cos(vec3(0.0, 2.1, 4.2) + v * 1.2 + t * 0.2);
    col *= 0.55;
    for (int i = 0; i < 3; i++) {
        float fi = float(i);
        // comets race around an ellipse, about 2 screen widths per second
        float a = t * (4.0 + fi) + fi * 2.1;
        vec2 p = vec2(0.65 * cos(a), 0.32 * sin(a * 1.3 + fi));
        float d = length(uv - p);
        col += vec3(1.0, 0.85, 0.6) * smoothstep(0.035, 0.0, d);
    }
    fragColor = vec4(col, 1.0);  // display (sRGB) values, as on shadertoy.com
}
