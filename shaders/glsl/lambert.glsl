// The default surface: ambient + Lambert diffuse from one directional light.
vec3 shade(vec3 normal, vec3 world, vec3 color) {
    float diffuse = max(dot(normal, u_light_dir), 0.0);
    return color * (u_ambient + (1.0 - u_ambient) * diffuse);
}
