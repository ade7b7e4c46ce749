#version 330 core
// Prepended to every surface shader (shaders/glsl/*.glsl or a scene's own): the inputs,
// the outputs (sRGB colour, or linear light with --hdr; linear depth, screen velocity) and helpers. A surface shader defines
//     vec3 shade(vec3 normal, vec3 world, vec3 color)
// returning linear light; `normal` faces the camera, `color` is the object's linear colour.
vec3 u_color;                // linear: the object's (v_object, set before shade())
float u_emissive;
float u_opacity;             // 1: opaque; below, blended over what lies behind (v_opacity)
uniform vec3 u_light_dir;    // towards the light, normalised
uniform float u_ambient;
uniform vec3 u_eye;
uniform vec3 u_forward;       // the camera's view direction
uniform int u_orthographic;
uniform float u_time;
uniform vec2 u_half_size;     // half the image size in pixels
uniform int hf_linear_out;    // 1: a float target (--hdr) takes linear light, past 1 too;
                              // 2: linear light up to 1 (translucent objects over 8-bit)

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

#include "srgb.frag"

// what the colour target holds: linear light (a float target; a surface shader's NaN as
// black, and no more than a half float holds, 65504x white) or its sRGB code
vec3 hf_target(vec3 lin) {
    if (hf_linear_out == 0)
        return hf_encode_srgb(lin);
    return clamp(mix(lin, vec3(0.0), isnan(lin)), 0.0, hf_linear_out == 2 ? 1.0 : 65504.0);
}
