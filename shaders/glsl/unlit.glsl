// No light: the surface shows its colour as it is (a text's default; Blender's
// "shadeless", an emission of the colour alone).
vec3 shade(vec3 normal, vec3 world, vec3 color) {
    return color;
}
