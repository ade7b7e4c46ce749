#version 330 core
// The scene's background: its colour (already sRGB) and an infinite depth (sky).
uniform vec3 u_background;
layout(location = 0) out vec4 f_color;
layout(location = 1) out float f_depth;
void main() {
    f_color = vec4(u_background, 1.0);
    f_depth = uintBitsToFloat(0x7F800000u);
}
