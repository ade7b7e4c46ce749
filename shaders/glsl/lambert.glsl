// The default surface: ambient + Lambert diffuse from one directional light, times the
// share of it that reaches the point (hf_shadow: 1 where the scene's shadows are off) and
// its light (u_light_color: light_color x light_strength, 1 unless set), plus the lamps'
// light (hf_lamps: 0 where the scene has none).
vec3 shade(vec3 normal, vec3 world, vec3 color) {
    float diffuse = max(dot(normal, u_light_dir), 0.0) * hf_shadow(world, normal);
    return color * (u_ambient + (1.0 - u_ambient) * diffuse * u_light_color)
           + color * hf_lamps(world, normal);
}
