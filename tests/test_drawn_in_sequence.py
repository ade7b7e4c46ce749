"""A sub-frame's picture is a pure function of the scene and its time (DESIGN: state is a
pure function of time; --resume, Ray chunks and fusion processes draw a frame alone): one
renderer drawing t = 0, 1, 2, 1, 0, 3 gives each the pixels of a fresh renderer drawing
that t alone, bit for bit, with a loaded model, a text, a translucent cube, a spot lamp
casting shadows (lit from t = 1) and the sun's shadows (from t = 2). Was: the lamp's map
read from texture unit 0 where the sun's map was drawn too and the program had not drawn
a sub-frame without them before (its ``u_spot_map0`` never set): up to 28 codes off."""

import numpy as np
import pytest

import hfrender as hf
import hfrender.renderer.renderer as renderers
from hfrender.renderer.renderer import SceneRenderer

trimesh = pytest.importorskip("trimesh", reason="the models extra: pip install -e '.[dev]'")

W, H = 64, 36
TIMES = (0.0, 1.0, 2.0, 1.0, 0.0, 3.0)


def lit_scene(model: str) -> type[hf.Scene]:
    """A plane, the ``model`` file, a translucent cube and a text at seeded places; a
    spot lamp with shadows lit from t = 1, the sun's shadows from t = 2; the cube turns."""

    class Lit(hf.Scene):
        light_direction = (0.4, 0.8, 0.6)

        def setup(self):
            rng = np.random.default_rng(11)
            x = rng.uniform(-0.3, 0.3, 3)
            self.add(hf.Plane(scale=8, rotation=(-1.3, 0, 0), color=(0.6, 0.5, 0.4)))
            self.add(hf.Mesh.load(model, position=(0.5 + x[0], 0.5, 0), scale=0.5,
                                  color="white"))
            self.cube = self.add(hf.Cube(position=(-1 + x[1], 0.5, 0), scale=0.5,
                                         color=(0.2, 0.8, 0.3), opacity=0.5))
            self.add(hf.Text("Hi", position=(x[2], 1.5, 0), height=0.5, color="white"))
            self.spot = self.add(hf.SpotLight(position=(0, 3, 2), angle=60, shadows=True,
                                              intensity=5.0))
            self.camera.position = (0, 2, 6)
            self.camera.look_at((0, 0.3, 0))

        def update(self, t):
            self.spot.visible = t >= 1.0
            self.shadows = t >= 2.0
            self.cube.rotation = (0.0, 0.3 * t, 0.0)

    return Lit


def draw_all(ctx, scene_class, times) -> list[np.ndarray]:
    """The pictures of one renderer drawing ``times`` in turn."""
    scene = scene_class()
    scene.setup()
    renderer = SceneRenderer(ctx, scene, (W, H), False)
    renderer.prepare()
    out = []
    for t in times:
        color = np.empty((H, W, 4), np.uint8)
        scene.update(t)
        renderer.draw(t, 0, (0.01, -0.02), (0.3, -0.1))
        renderer.read_into(color)
        out.append(color)
    renderer.release()
    return out


def icosahedron(folder) -> str:
    """A model file in ``folder``: an icosahedron."""
    path = str(folder / "ico.glb")
    trimesh.creation.icosahedron().export(path)
    return path


@pytest.fixture
def model(tmp_path) -> str:
    return icosahedron(tmp_path)


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("programs", ["by lighting", "full"])
def test_a_sub_frame_is_the_same_drawn_after_others_or_alone(gl_context, monkeypatch, model,
                                                             programs):
    ctx = gl_context(size=(W, H)).ctx
    if programs == "full":  # every program with the lamps' and shadows' code
        monkeypatch.setattr(renderers, "lighting_of", lambda shared: "")
    scene_class = lit_scene(model)
    in_turn = draw_all(ctx, scene_class, TIMES)
    alone = {t: draw_all(ctx, scene_class, [t])[0] for t in sorted(set(TIMES))}
    for t, picture in zip(TIMES, in_turn, strict=True):
        off = np.abs(picture.astype(int) - alone[t]).max(-1)
        assert off.max() == 0, f"t={t}: {int((off > 0).sum())} pixels off, up to {off.max()}"
    sums = [int(alone[t][..., :3].astype(int).sum()) for t in (0.0, 1.0, 2.0)]
    assert sums[1] > sums[0] * 1.02 and sums[2] < sums[1] * 0.995, sums  # lit, shadowed
