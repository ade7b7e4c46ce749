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

void main() {
    vec4 world = u_model * vec4(in_position, 1.0);
    vec4 view = u_view * world;
    v_world = world.xyz;
    v_normal = u_normal_matrix * in_normal;
    v_depth = -view.z;
    gl_Position = u_proj * view;
    v_clip = gl_Position;
    v_clip_rate = u_clip_rate * vec4(in_position, 1.0);
    v_object = vec4(u_color, u_emissive);
    v_opacity = u_opacity;
#ifdef HF_DEPTH_ONLY
    gl_ClipDistance[0] = distance(world.xyz, u_clip_sphere.xyz) - u_clip_sphere.w;
#endif
#ifdef HF_MODEL
    v_uv = in_uv;
    v_color = in_color;
    if (u_skinned) v_clip_rate += in_skin_rate;  // (its u_clip_rate: 0)
#endif
}
