// Test shader: a white bar 4 px wide moving right at SPEED px/s from x = 20 at t = 0.
const float SPEED = 600.0;
void mainImage(out vec4 fragColor, in vec2 fragCoord) {
    float a = 20.0 + SPEED * iTime;
    float on = (fragCoord.x >= a && fragCoord.x < a + 4.0) ? 1.0 : 0.0;
    fragColor = vec4(vec3(on), 1.0);
}
