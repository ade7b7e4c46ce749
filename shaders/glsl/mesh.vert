#version 330 core
// hfrender mesh vertex shader: world, view and projection; passes the linear depth
// (distance along the camera's view axis) for the depth-of-field pass, and the clip-space
// position with its rate of change (u_clip_rate = d/dt of proj * view * model, from the
// scene's own motion) for the velocity plane. Outputs are `centroid`: with multisampling
// a pixel a triangle covers only in part is shaded inside the triangle, not at the pixel's
// centre (an extrapolated depth there can even be negative).
// A built-in geometry draws many objects at once (hfrender/renderer/instances.py): each
// object's values are per instance (i_*); a loaded model, one object a draw, sets them as
// uniforms. Either way the fragment shader gets the colour and emissive as v_object, the
// opacity as v_opacity (per instance too: a run of translucent objects of different
// opacities is one draw).
// A loaded model's skinned or morphed part is posed here (u_posing; hfrender/renderer/
// skinning.py): its morph targets' deltas at their weights, then linear blend skinning
// by its joints' matrices (glTF 2.0, 3.7.2.2 and 3.7.3), normals by the blend's cofactors,
// its velocity by the joints' clip rates and the weights' rates, as the NumPy reference
// (hfrender/scene/model_skins.py's posed) does it.
uniform mat4 u_view;
uniform mat4 u_proj;
#ifdef HF_DEPTH_ONLY  // a shadow map's (hfrender/renderer/shadows.py)
uniform vec4 u_clip_sphere;  // xyz, w: what lies within w of xyz is clipped (a point lamp's
                             // radius: its bulb casts nothing), where GL_CLIP_DISTANCE0 is on
#endif
#ifdef HF_MODEL
uniform mat4 u_model;
uniform mat3 u_normal_matrix;
uniform mat4 u_clip_rate;
uniform vec3 u_color;        // linear
uniform float u_emissive;
uniform float u_opacity;     // 1: opaque; below, blended over what lies behind
uniform bool u_skinned;      // a posed skin's part: each vertex's own clip rate, below
uniform bool u_posing;       // a skinned or morphed part posed here, from in_base_* (hf_pose)
uniform bool u_pose_joints;  // ... skinned: u_joints holds its joints
uniform bool u_pose_rated;   // ... its rates known: each vertex's own clip rate added
uniform sampler2D u_joints;  // a row a joint: its matrix's 4 columns, then its clip rate's
uniform sampler2D u_targets; // morph deltas: texel 2 (k V + v) target k's position delta
uniform int u_target_count;  // of vertex v, the next its normal delta (a row: u_targets_wide)
uniform int u_targets_wide;
uniform int u_vertex_count;
uniform vec4 u_target_weights[32];  // 4 targets' weights a vec4 (128 at most)
uniform vec4 u_target_rates[32];    // and their rates (d/dt)
#else
in mat4 i_model;             // columns, as a uniform's
in mat3 i_normal_matrix;
in mat4 i_clip_rate;
in vec4 i_object;            // linear colour, emissive
in float i_opacity;
#define u_model i_model
#define u_normal_matrix i_normal_matrix
#define u_clip_rate i_clip_rate
#define u_color i_object.rgb
#define u_emissive i_object.a
#define u_opacity i_opacity
#endif

in vec3 in_position;
in vec3 in_normal;
#ifdef HF_MODEL  // a loaded model (hfrender/renderer/models.py): UVs and vertex colours
in vec2 in_uv;
in vec4 in_color;  // linear RGBA
in vec4 in_skin_rate;  // a posed skin's vertex: d/dt of its clip position (u_skinned)
in vec3 in_base_position;  // u_posing: the part's vertex unposed (a skin's: its primitive's
in vec3 in_base_normal;    // frame), its normal, its joints (rows of u_joints) and weights
in ivec4 in_joints0;
in ivec4 in_joints1;
in vec4 in_weights0;
in vec4 in_weights1;
centroid out vec2 v_uv;
centroid out vec4 v_color;
#endif

centroid out vec3 v_normal;
centroid out vec3 v_world;
centroid out float v_depth;
centroid out vec4 v_clip;
centroid out vec4 v_clip_rate;
flat out vec4 v_object;     // the object's linear colour, emissive
flat out float v_opacity;

#ifdef HF_MODEL
mat4 hf_joint(int j, int at) {  // u_joints' matrix (at 0) or clip rate (at 4) of joint j
    return mat4(texelFetch(u_joints, ivec2(at, j), 0), texelFetch(u_joints, ivec2(at + 1, j), 0),
                texelFetch(u_joints, ivec2(at + 2, j), 0), texelFetch(u_joints, ivec2(at + 3, j), 0));
}

void hf_blend(ivec4 joints, vec4 weights, inout mat4 m, inout mat4 rate) {
    for (int i = 0; i < 4; ++i) {
        if (weights[i] > 0.0) {  // (an unweighed influence adds nothing: not fetched)
            m += weights[i] * hf_joint(joints[i], 0);
            if (u_pose_rated) rate += weights[i] * hf_joint(joints[i], 4);
        }
    }
}

vec3 hf_delta(int k, int which) {  // target k's position (0) or normal (1) delta here
    int at = 2 * (k * u_vertex_count + gl_VertexID) + which;
    return texelFetch(u_targets, ivec2(at % u_targets_wide, at / u_targets_wide), 0).xyz;
}

// the part's vertex posed: its position, normal (normalised) and clip rate (its own: its
// joints' rates and its weights' sweep, less the part's u_clip_rate's share)
void hf_pose(out vec3 position, out vec3 normal, out vec4 rate) {
    vec3 p = in_base_position, n = in_base_normal, sweep = vec3(0.0);
    for (int k = 0; k < u_target_count; ++k) {
        float w = u_target_weights[k / 4][k % 4], dw = u_target_rates[k / 4][k % 4];
        if (w == 0.0 && dw == 0.0) continue;
        vec3 dp = hf_delta(k, 0);
        p += w * dp;
        n += w * hf_delta(k, 1);
        sweep += dw * dp;
    }
    mat4 clip = u_proj * u_view * u_model, m = mat4(1.0), rates = mat4(0.0);
    if (u_pose_joints) {
        m = mat4(0.0);
        hf_blend(in_joints0, in_weights0, m, rates);
        hf_blend(in_joints1, in_weights1, m, rates);
        n = mat3(cross(m[1].xyz, m[2].xyz), cross(m[2].xyz, m[0].xyz),
                 cross(m[0].xyz, m[1].xyz)) * n;  // (its cofactors: det x inverse transpose)
    }
    position = (m * vec4(p, 1.0)).xyz;
    normal = n / max(length(n), 1e-30);
    rate = rates * vec4(p, 1.0) + clip * (m * vec4(sweep, 0.0));
}
#endif

void main() {
    vec3 position = in_position, normal = in_normal;
#ifdef HF_MODEL
    vec4 own_rate = vec4(0.0);
    if (u_posing) hf_pose(position, normal, own_rate);
#endif
    vec4 world = u_model * vec4(position, 1.0);
    vec4 view = u_view * world;
    v_world = world.xyz;
    v_normal = u_normal_matrix * normal;
    v_depth = -view.z;
    gl_Position = u_proj * view;
    v_clip = gl_Position;
    v_clip_rate = u_clip_rate * vec4(position, 1.0);
    v_object = vec4(u_color, u_emissive);
    v_opacity = u_opacity;
#ifdef HF_DEPTH_ONLY
    gl_ClipDistance[0] = distance(world.xyz, u_clip_sphere.xyz) - u_clip_sphere.w;
#endif
#ifdef HF_MODEL
    v_uv = in_uv;
    v_color = in_color;
    if (u_skinned) v_clip_rate += in_skin_rate;  // (its u_clip_rate: 0)
    if (u_posing && u_pose_rated) v_clip_rate += own_rate;  // (a skin's u_clip_rate: 0)
#endif
}
