#version 330 core
// hfrender mesh vertex shader: world, view and projection; passes the linear depth
// (distance along the camera's view axis) for the depth-of-field pass.
uniform mat4 u_model;
uniform mat4 u_view;
uniform mat4 u_proj;
uniform mat3 u_normal_matrix;

in vec3 in_position;
in vec3 in_normal;

out vec3 v_normal;
out vec3 v_world;
out float v_depth;

void main() {
    vec4 world = u_model * vec4(in_position, 1.0);
    vec4 view = u_view * world;
    v_world = world.xyz;
    v_normal = u_normal_matrix * in_normal;
    v_depth = -view.z;
    gl_Position = u_proj * view;
}
