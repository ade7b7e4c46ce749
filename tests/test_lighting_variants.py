"""A sub-frame without lamps lit or the sun's shadows is drawn by programs compiled without
their code (hfrender/renderer/models.py: SurfacePrograms, lighting_of; HF_NO_LAMPS and
HF_NO_SUN_SHADOW in shaders/glsl/mesh_header.frag): llvmpipe runs a branch's code under a
mask whatever the uniform says (the lamp loop's first pass, the shadow map's taps), half a
sub-frame's time. Pictures bit for bit those of the full programs, drawn alone or one
renderer drawing one time after another (with a model, a text, a translucent cube and a
spot lamp casting shadows too)."""

import numpy as np
import pytest

import hfrender as hf
import hfrender.renderer.renderer as renderers
from hfrender.renderer.renderer import SceneRenderer
from tests.test_drawn_in_sequence import TIMES, draw_all, icosahedron, lit_scene

W, H = 96, 64


class Shapes(hf.Scene):
    """Seeded random cubes and spheres over a plane; a point lamp lit from t = 1 on, the
    sun's shadows from t = 2 on."""

    light_direction = (0.4, 0.8, 0.6)

    def setup(self):
        rng = np.random.default_rng(7)
        self.add(hf.Plane(scale=8, rotation=(-1.3, 0, 0), color=(0.6, 0.5, 0.4)))
        for k in range(6):
            kind = hf.Cube if k % 2 else hf.Sphere
            self.add(kind(position=tuple(rng.uniform((-2, 0, -2), (2, 1, 1))),
                          scale=float(rng.uniform(0.2, 0.6)), color=tuple(rng.uniform(0, 1, 3))))
        self.lamp = self.add(hf.PointLight(position=(0, 1.5, 1), intensity=2.0))
        self.camera.position = (0, 2, 6)
        self.camera.look_at((0, 0.3, 0))

    def update(self, t):
        self.lamp.visible = t >= 1.0
        self.shadows = t >= 2.0


def draw(ctx, t, full=False):
    """(the picture at ``t``, the program that drew the plane); ``full``: every program
    compiled with the lamps' and shadows' code, as before the variants."""
    scene = Shapes()
    scene.setup()
    renderer = SceneRenderer(ctx, scene, (W, H), False)
    renderer.prepare()
    color = np.empty((H, W, 4), np.uint8)
    scene.update(t)
    renderer.draw(t, 0, (0.01, -0.02), (0.3, -0.1))
    renderer.read_into(color)
    prog = renderer._program(None)  # (the current sub-frame's)
    names = {name for name in ("u_lamp_count", "u_shadow_map") if prog.get(name, None)}
    renderer.release()
    return color, names


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("t, kept", [(0.0, set()), (1.0, {"u_lamp_count"}),
                                     (2.0, {"u_lamp_count", "u_shadow_map"})])
def test_a_sub_frame_draws_with_the_code_of_its_lights_alone(gl_context, monkeypatch, t, kept):
    ctx = gl_context(size=(W, H)).ctx
    picture, names = draw(ctx, t)
    assert names == kept
    monkeypatch.setattr(renderers, "lighting_of", lambda shared: "")
    full, names = draw(ctx, t)
    assert names == {"u_lamp_count", "u_shadow_map"}
    assert picture.tobytes() == full.tobytes()
    lit = picture[..., :3].astype(int).sum()
    assert (lit > draw(ctx, 0.0)[0][..., :3].astype(int).sum()) == (t >= 1.0)


@pytest.mark.usefixtures("gl_context")
def test_a_sequence_drawn_by_the_variants_is_the_full_programs_one(gl_context, monkeypatch,
                                                                  tmp_path):
    ctx = gl_context(size=(W, H)).ctx
    scene_class, real, asked = lit_scene(icosahedron(tmp_path)), renderers.lighting_of, []
    monkeypatch.setattr(renderers, "lighting_of",
                        lambda shared: asked.append(real(shared)) or asked[-1])
    by_lighting = draw_all(ctx, scene_class, TIMES)
    assert asked == ["#define HF_NO_SUN_SHADOW 1\n"] + [  # (prepare's: the spot lit)
        ("#define HF_NO_LAMPS 1\n" if t < 1 else "") +
        ("#define HF_NO_SUN_SHADOW 1\n" if t < 2 else "") for t in TIMES]
    monkeypatch.setattr(renderers, "lighting_of", lambda shared: "")
    full = draw_all(ctx, scene_class, TIMES)
    for t, picture, whole in zip(TIMES, by_lighting, full, strict=True):
        off = np.abs(picture.astype(int) - whole).max(-1)
        assert off.max() == 0, f"t={t}: {int((off > 0).sum())} pixels off, up to {off.max()}"


class Dark(Shapes):
    """:class:`Shapes` with its lamp off from the start and no shadows: the demo's lights."""

    def setup(self):
        super().setup()
        self.lamp.visible = False

    def update(self, t):
        pass


@pytest.mark.usefixtures("gl_context")
def test_prepare_compiles_the_programs_of_the_lights_the_scene_has(gl_context, tmp_path):
    """A scene without lamps or shadows compiles each shader once, the variant it draws
    with (was: the full one too, in ``prepare``); a text's ``unlit``, calling neither
    ``hf_lamps`` nor ``hf_shadow``, once whatever the lights."""
    ctx = gl_context(size=(W, H)).ctx
    made = {}
    for name, scene in (("dark", Dark()), ("lit", lit_scene(icosahedron(tmp_path))())):
        scene.setup()
        renderer = SceneRenderer(ctx, scene, (W, H), False)
        renderer.prepare()
        for t in (0.0, 1.0, 2.0):
            scene.update(t)
            renderer.draw(t, 0)
        made[name] = [len(renderer.programs.made), len(renderer.models.programs.made),
                      len(renderer.texts.programs.made)]
        renderer.release()
    assert made == {"dark": [1, 0, 0], "lit": [3, 3, 1]}


def test_a_surface_shader_edited_between_two_renders_is_read_again(tmp_path):
    """The calls a surface shader makes are found in its text as it is now (were kept by
    its name and folder: one edited between two hf.render calls in one process kept the
    first answer, its lighting variant and its 'never calls' warnings)."""
    from hfrender.renderer.surface import lighting_calls, unlit_calls

    path = tmp_path / "mine.glsl"
    head = "vec3 shade(vec3 n, vec3 w, vec3 c) {\n    float d = max(dot(n, u_light_dir), 0.);\n"
    both = "    return c * (d * hf_shadow(w, n) + hf_lamps(w, n));\n}\n"
    found = []
    for body in ("    return c * d;\n}\n", both,
                 "    // hf_lamps(w, n)\n    return c * hf_shadow(w, n);\n}\n"):
        path.write_text(head + body)
        found.append((sorted(lighting_calls("mine", tmp_path)),
                      unlit_calls("mine", tmp_path)))
    assert found == [([], (path, ("hf_lamps", "hf_shadow"))),
                     (["hf_lamps", "hf_shadow"], (path, ())),
                     (["hf_shadow"], (path, ("hf_lamps",)))]  # (one in a comment: none)
