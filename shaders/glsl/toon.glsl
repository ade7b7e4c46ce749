// A cel-shaded surface: three flat bands of light and a dark rim. Use with shader="toon".
// In a shadow (hf_shadow) the light is 0: the darkest band. The directional light's
// colour x strength (u_light_color) and the lamps' light (hf_lamps) make the light the
// bands are cut from (its brightest channel), and tint them by its colour (the darkest
// band's 0.3 counted as white light: a faint lamp tints it faintly).
vec3 shade(vec3 normal, vec3 world, vec3 color) {
    float d = max(dot(normal, u_light_dir), 0.0) * hf_shadow(world, normal);
    vec3 light = d * u_light_color + hf_lamps(world, normal);
    float total = max(light.r, max(light.g, light.b));
    float band = total > 0.66 ? 1.0 : total > 0.25 ? 0.6 : 0.3;
    vec3 tint = any(notEqual(light, vec3(d)))  // (a white light of 1 and no lamp: white)
        ? (light + 0.3) / (total + 0.3) : vec3(1.0);
    float rim = 1.0 - max(dot(normal, hf_to_eye(world)), 0.0);
    return color * band * tint * (rim > 0.8 ? 0.25 : 1.0);
}
