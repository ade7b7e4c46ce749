#version 330 core
// Prepended to every surface shader (shaders/glsl/*.glsl or a scene's own): the inputs,
// the outputs (sRGB colour, or linear light with --hdr; linear depth, screen velocity) and helpers. A surface shader defines
//     vec3 shade(vec3 normal, vec3 world, vec3 color)
// returning linear light; `normal` faces the camera, `color` is the object's linear colour.
// It may call hf_shadow(world, normal): the share of the light that reaches the point (1
// lit, 0 in shadow; 1 wherever the scene's shadows are off), as lambert and toon do.
// It may call hf_lamps(world, normal): the light of the scene's lamps (hf.PointLight,
// hf.SpotLight) reaching the point, to multiply by the colour (0 where it has none); a
// lamp with shadows=True through its shadow map.
vec3 u_color;                // linear: the object's (v_object, set before shade())
float u_emissive;
float u_opacity;             // 1: opaque; below, blended over what lies behind (v_opacity)
uniform vec3 u_light_dir;    // towards the light, normalised
uniform vec3 u_light_color;  // its linear colour x the scene's light_strength (1: white)
uniform float u_ambient;
uniform vec3 u_eye;
uniform vec3 u_forward;       // the camera's view direction
uniform int u_orthographic;
uniform float u_time;
uniform vec2 u_half_size;     // half the image size in pixels
uniform int hf_linear_out;    // 1: a float target (--hdr) takes linear light, past 1 too;
                              // 2: linear light up to 1 (translucent objects over 8-bit)
uniform int u_shadows;        // 1: the scene's shadows = True, its light above 0 (shadows.py)
uniform sampler2DShadow u_shadow_map;  // the light's depth of the opaque objects
uniform mat4 u_light_matrix;  // world -> the shadow map's (s, t, depth), each 0..1
uniform vec3 u_shadow_texel;  // a texel of the map: metres across, in s-t, in depth
#define HF_MAX_LAMPS 8        // the lamps lit at a time (hfrender/renderer/lamps.py)
uniform int u_lamp_count;     // those lit now, the first of the arrays
uniform vec4 u_lamp_position[HF_MAX_LAMPS];  // world xyz; w: max(radius^2, 1e-8)
uniform vec4 u_lamp_color[HF_MAX_LAMPS];     // linear colour x intensity x groups' opacity;
                                             // w: a spot's cos(angle / 2), -2 for a point lamp
uniform vec4 u_lamp_aim[HF_MAX_LAMPS];       // a spot's unit direction; w: its blend in cosine
uniform int u_lamp_shadow[HF_MAX_LAMPS];     // 1..4: the lamp's shadow map (u_spot_map0..3,
                                             // hfrender/renderer/lamp_shadows.py); 0: none
uniform sampler2DShadow u_spot_map0;  // the lamps' depth of the opaque objects (a point
                                      // lamp's: six faces, 3 across, 2 up)
uniform sampler2DShadow u_spot_map1;
uniform sampler2DShadow u_spot_map2;
uniform sampler2DShadow u_spot_map3;
uniform mat4 u_spot_matrix[4];  // world -> the map's (s, t, depth) x w, w: along its axis
                                // (a point lamp's: its face's frame -> its face's)
uniform vec4 u_spot_texel[4];   // a texel's metres 1 m along the axis, in s-t; near, far
uniform mat3 u_cube_axes[6];    // a point lamp's faces (+x -x +y -y +z -z): the way from
                                // it -> the face's frame (right, up, back)

centroid in vec3 v_normal;
centroid in vec3 v_world;
centroid in float v_depth;
centroid in vec4 v_clip;
centroid in vec4 v_clip_rate;
flat in vec4 v_object;       // the object's linear colour, emissive (mesh.vert)
flat in float v_opacity;
#ifdef HF_MODEL  // a loaded model: vertex colours, a base-colour texture, flat normals
uniform sampler2D u_base_texture;  // sRGB: the sampler decodes it to linear light
uniform int u_textured;
uniform int u_flat_normals;        // the file has no normals: shade each triangle flat
uniform vec3 u_material_emission;  // the part's material's own light, linear (its glTF
                                   // emissiveFactor x strength; untinted by u_color)
uniform sampler2D u_emission_texture;  // its glTF emissiveTexture, sRGB (decoded by the
uniform int u_emission_textured;        // sampler), times u_material_emission where 1
centroid in vec2 v_uv;
centroid in vec4 v_color;                   // linear, the material's base colour factor included
#endif
#ifdef HF_TEXT  // text (hfrender/renderer/text.py): u_base_texture holds its glyphs' coverage
uniform float u_cover_cut;         // dropped where coverage x opacity is below it
#endif

layout(location = 0) out vec4 f_color;
layout(location = 1) out float f_depth;
layout(location = 2) out vec2 f_velocity;  // pixels per second, x right, y down

// unit vector from a surface point towards the viewer (parallel rays when orthographic)
vec3 hf_to_eye(vec3 world) {
    return u_orthographic != 0 ? -u_forward : normalize(u_eye - world);
}

// the share of four hardware-compared taps of `map` half a texel (`d`, in s and t) about
// `at` that lie nearer than `ref` (a 1-2 texel soft edge); at level 0 by textureLod: the
// callers tap in non-uniform branches, where texture()'s implicit derivatives are undefined
float hf_taps(sampler2DShadow map, vec2 at, float ref, vec2 d) {
    float lit = 0.0;
    lit += textureLod(map, vec3(at.x - d.x, at.y - d.y, ref), 0.0);
    lit += textureLod(map, vec3(at.x + d.x, at.y - d.y, ref), 0.0);
    lit += textureLod(map, vec3(at.x - d.x, at.y + d.y, ref), 0.0);
    lit += textureLod(map, vec3(at.x + d.x, at.y + d.y, ref), 0.0);
    return 0.25 * lit;
}

// the depth bias in texels as the surface turns from the light (`cosine`: n.l)
float hf_slope(float cosine, float sine) {
    return 1.0 + 2.0 * min(sine / max(cosine, 0.05), 8.0);
}

// how much of the light reaches `world` (`normal`: the side seen): 1 lit, 0 in the shadow
// of an opaque object, 1 wherever the scene's shadows are off. Four hardware-compared taps
// half a texel about the point (a 1-2 texel soft edge); the point slid along the normal by
// up to 1.5 texels and its depth biased by the slope as the surface turns from the light
// (no self-shadowing "acne" on lit surfaces). HF_NO_SUN_SHADOW (a sub-frame with u_shadows 0:
// hfrender/renderer/models.py's lighting_of) compiles the taps out: llvmpipe runs the code
// of a branch under a mask whatever the uniform says
float hf_shadow(vec3 world, vec3 normal) {
#ifdef HF_NO_SUN_SHADOW
    return 1.0;
#else
    if (u_shadows == 0) return 1.0;
    float cosine = clamp(dot(normal, u_light_dir), 0.0, 1.0);
    float sine = sqrt(1.0 - cosine * cosine);
    vec4 at = u_light_matrix * vec4(world + normal * (1.5 * u_shadow_texel.x * sine), 1.0);
    if (any(lessThan(at.xy, vec2(0.0))) || any(greaterThan(at.xy, vec2(1.0)))) return 1.0;
    float ref = min(at.z, 1.0) - u_shadow_texel.z * hf_slope(cosine, sine);
    return hf_taps(u_shadow_map, at.xy, ref, vec2(0.5 * u_shadow_texel.y));
#endif
}

// world -> lamp map `k`'s (s, t, depth) x w, w: the distance along its axis; a point
// lamp's (at `lamp`) in the cube face the point lies in (`face`: its tile, column and row)
vec4 hf_lamp_map(int k, vec3 world, bool point, vec3 lamp, out vec2 face) {
    face = vec2(0.0);
    if (!point) return u_spot_matrix[k] * vec4(world, 1.0);
    vec3 to = world - lamp, a = abs(to);
    int f = a.x >= a.y && a.x >= a.z ? (to.x >= 0.0 ? 0 : 1)
          : a.y >= a.z ? (to.y >= 0.0 ? 2 : 3) : (to.z >= 0.0 ? 4 : 5);
    face = vec2(float(f % 3), float(f / 3));
    return u_spot_matrix[k] * vec4(u_cube_axes[f] * to, 1.0);
}

// how much of lamp `i`'s light (its map `k`, u_spot_map<k>) reaches `world`, `l` the unit
// way to the lamp: hf_shadow()'s taps, normal offset and bias, a texel's size as the
// map's at the point's distance along the axis (w), the biased distance taken to the
// map's depth; a point lamp's map (`point`) in the tile of the face the point lies in
float hf_lamp_shadow(int k, int i, vec3 world, vec3 normal, vec3 l, bool point) {
    vec4 texel = u_spot_texel[k];
    vec3 lamp = u_lamp_position[i].xyz;
    float cosine = clamp(dot(normal, l), 0.0, 1.0);
    float sine = sqrt(1.0 - cosine * cosine);
    vec2 face;
    float metres = texel.x * hf_lamp_map(k, world, point, lamp, face).w;
    vec4 at = hf_lamp_map(k, world + normal * (1.5 * metres * sine), point, lamp, face);
    if (at.w <= 0.0) return 1.0;
    vec2 st = at.xy / at.w;
    if (any(lessThan(st, vec2(0.0))) || any(greaterThan(st, vec2(1.0)))) return 1.0;
    float away = max(at.w - metres * hf_slope(cosine, sine), 1e-30);
    float ref = min(texel.w / (texel.w - texel.z) * (1.0 - texel.z / away), 1.0);
    vec2 tiles = point ? vec2(3.0, 2.0) : vec2(1.0);  // (its faces across and up)
    st = (face + st) / tiles;
    vec2 d = 0.5 * texel.y / tiles;
    if (k == 0) return hf_taps(u_spot_map0, st, ref, d);
    if (k == 1) return hf_taps(u_spot_map1, st, ref, d);
    if (k == 2) return hf_taps(u_spot_map2, st, ref, d);
    return hf_taps(u_spot_map3, st, ref, d);
}

// the light of the lamps at `world` (`normal`: the side seen, unit), to multiply by the
// surface's colour: each lamp's colour x intensity x max(0, n.l) / max(d^2, radius^2), a
// spot's times its cone (Blender's: smoothstep over its blend, inside cos(angle / 2)) and,
// where it has shadows=True, the share of it its shadow map lets through (hf_lamp_shadow).
// HF_NO_LAMPS (a sub-frame with u_lamp_count 0) compiles the loop out: llvmpipe runs a
// loop's body once under a mask, a lamp's shadow taps included, even for no lamp.
vec3 hf_lamps(vec3 world, vec3 normal) {
    vec3 sum = vec3(0.0);
#ifndef HF_NO_LAMPS
    for (int i = 0; i < u_lamp_count; ++i) {
        vec3 to = u_lamp_position[i].xyz - world;
        float d2 = dot(to, to);
        vec3 l = to * inversesqrt(max(d2, 1e-30));
        float light = max(dot(normal, l), 0.0) / max(d2, u_lamp_position[i].w);
        float edge = u_lamp_color[i].w, soft = u_lamp_aim[i].w;
        if (edge > -1.5) {  // a spot: its cone
            float c = dot(-l, u_lamp_aim[i].xyz);
            light *= soft > 0.0 ? smoothstep(0.0, 1.0, (c - edge) / soft) : step(edge, c);
        }
        int map = u_lamp_shadow[i];
        if (map > 0 && light > 0.0)
            light *= hf_lamp_shadow(map - 1, i, world, normal, l, edge < -1.5);
        sum += u_lamp_color[i].rgb * light;
    }
#endif
    return sum;
}

#include "srgb.frag"

// what the colour target holds: linear light (a float target; a surface shader's NaN as
// black, and no more than a half float holds, 65504x white) or its sRGB code
vec3 hf_target(vec3 lin) {
    if (hf_linear_out == 0)
        return hf_encode_srgb(lin);
    return clamp(mix(lin, vec3(0.0), isnan(lin)), 0.0, hf_linear_out == 2 ? 1.0 : 65504.0);
}
