#version 330 core
// The scene's background: its colour (already sRGB), an infinite depth (sky), no motion.
uniform vec3 u_background;
uniform float u_alpha;  // 0: a transparent background (colour 0: premultiplied)
layout(location = 0) out vec4 f_color;
layout(location = 1) out float f_depth;
layout(location = 2) out vec2 f_velocity;
void main() {
    f_color = vec4(u_background * u_alpha, u_alpha);
    f_depth = uintBitsToFloat(0x7F800000u);
    f_velocity = vec2(0.0);
}
