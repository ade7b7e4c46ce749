void main() {
    u_color = v_object.rgb;
    u_emissive = v_object.a;
    u_opacity = v_opacity;
#ifdef HF_MODEL
    vec3 facet = cross(dFdx(v_world), dFdy(v_world));  // the triangle's own normal
    vec3 n = normalize(u_flat_normals != 0 ? facet : v_normal);
    vec3 base = u_color * v_color.rgb;
    if (u_textured != 0) base *= texture(u_base_texture, v_uv).rgb;
#else
    vec3 n = normalize(v_normal);
    vec3 base = u_color;
#endif
    if (dot(n, hf_to_eye(v_world)) < 0.0) n = -n;  // two-sided: light the side we see
    vec3 lin = shade(n, v_world, base) + base * u_emissive;
#ifdef HF_MODEL
    if (u_emission_textured != 0)
        lin += u_material_emission * texture(u_emission_texture, v_uv).rgb;
    else
        lin += u_material_emission;  // (0: the sum unchanged, bit for bit)
#endif
    f_color = vec4(hf_target(lin), 1.0) * u_opacity;  // premultiplied (1: as it is)
#ifdef HF_TEXT
    float cover = texture(u_base_texture, v_uv).r;  // the glyphs' share of the pixel
    if (cover * u_opacity < u_cover_cut) discard;
    f_color *= cover;
#endif
    f_depth = v_depth;
    // d/dt (clip.xy / clip.w): both are interpolated linearly over the surface (as the
    // object-space position is), so this is the exact motion of the surface point seen
    f_velocity = (v_clip_rate.xy * v_clip.w - v_clip.xy * v_clip_rate.w)
                 / (v_clip.w * v_clip.w) * u_half_size;
}
