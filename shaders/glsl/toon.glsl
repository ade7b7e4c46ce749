// A cel-shaded surface: three flat bands of light and a dark rim. Use with shader="toon".
// In a shadow (hf_shadow) the light is 0: the darkest band.
vec3 shade(vec3 normal, vec3 world, vec3 color) {
    float d = max(dot(normal, u_light_dir), 0.0) * hf_shadow(world, normal);
    float band = d > 0.66 ? 1.0 : d > 0.25 ? 0.6 : 0.3;
    float rim = 1.0 - max(dot(normal, hf_to_eye(world)), 0.0);
    return color * band * (rim > 0.8 ? 0.25 : 1.0);
}
