"""A scene's shadow map: ``shadows`` checked as the other lighting is, a skinned model's
posed shadow in every mode, the map as fine as the output asks, ``shadow_resolution`` (the map
drawn, and checked in one line), and the map drawn once while its casters stand still."""

from pathlib import Path

import numpy as np
import pytest
from render_helpers import render_frames
from shadow_helpers import check_shadow, cube_scene, draw, footprint

import hfrender as hf
from hfrender.errors import InputError
from hfrender.renderer.renderer import SceneRenderer


def test_shadows_is_checked_as_the_other_lighting_is():
    with pytest.raises(InputError) as caught:
        class Bad(hf.Scene):
            shadows = "yes"
    assert str(caught.value) == "Bad.shadows='yes' must be True or False"

    class Fine(hf.Scene):
        shadows = 1

    assert Fine.shadows is True
    scene = Fine()
    with pytest.raises(InputError) as caught:
        scene.shadows = 2
    assert str(caught.value) == "Fine.shadows=2 must be True or False"
    scene.shadows = False
    assert scene.shadows is False


def arm_scene(folder, shadows, arm=True):
    """scenes/skinned_arm.py (a skinned, morphing model on a floor) with ``shadows``, a
    translucent ball and a text beside, written into ``folder`` with its model."""
    import shutil

    scenes = Path(__file__).resolve().parents[1] / "scenes"
    if not (folder / "assets").exists():
        shutil.copytree(scenes / "assets", folder / "assets")
    text = (scenes / "skinned_arm.py").read_text().replace(
        "    ambient = 0.3\n", f"    ambient = 0.3\n    shadows = {shadows}\n").replace(
        "        self.camera.position", "        self.arm.visible = " + str(arm) + "\n"
        "        self.add(hf.Sphere(radius=0.3, position=(1.5, 0.5, 1), opacity=0.5))\n"
        "        self.add(hf.Text('hi', position=(-1, 0.2, 1), height=0.3))\n"
        "        self.camera.f_stop = 8.0\n        self.camera.focus_distance = 6.5\n"
        "        self.camera.position")
    path = folder / f"arm_{shadows}_{arm}.py"
    path.write_text(text)
    return path


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("modes", [dict(msaa=4, reconstruct="on", dof="depth"),
                                   dict(msaa=1, reconstruct="off", hdr="on")])
def test_a_skinned_model_casts_its_posed_shadow_in_every_mode(tmp_path, modes):
    """The arm's shadow (the pixels its showing changes with shadows on and not with
    them off) is there, and moves as the arm bends (its pose drawn into the map, not its
    rest pose), with MSAA, --reconstruct and --dof depth, a translucent ball and a text
    in the scene (no GL error: the fixture's check)."""
    settings = dict(size=(120, 80), samples=2, backend="cpu", fps=4, **modes)

    def frame(shadows, arm, first):
        out, _ = render_frames(arm_scene(tmp_path, shadows, arm), first_frame=first, count=1,
                               **settings)
        return out[0].astype(int)

    def shade_of_arm(first):
        with_light = np.abs(frame(True, True, first) - frame(True, False, first)).max(-1)
        without = np.abs(frame(False, True, first) - frame(False, False, first)).max(-1)
        return (with_light > 12) & (without <= 2)

    a, b = shade_of_arm(0), shade_of_arm(2)
    assert a.sum() > 30 and b.sum() > 30
    assert (a != b).sum() > 20


def fitted_size(scene, size):
    """The map's texels a side that :func:`fit` gives ``scene`` (set up) drawn at ``size``."""
    from hfrender.renderer.shadows import boxes, fit

    renderer = SceneRenderer.__new__(SceneRenderer)  # (no GL: its sizes alone)
    renderer.scene, renderer.size = scene, size
    light = np.asarray(scene.light_direction, np.float64)
    return fit(scene, size[0] / size[1], light / np.linalg.norm(light),
               renderer._pixels_a_metre(), boxes(scene))[3]


def test_the_map_is_as_fine_as_the_output_asks():
    """A texel at most half a pixel where the map's middle is seen, in steps of 256 from
    512 to 4096: the 100 m floor's seen part (10.74 m across the light, a pixel 3 m / 180
    at 320 x 180) 2 x 10.74 / (3 / 180) = 1289 -> 1536; at 1920 x 1080, 7733 -> 4096 (its
    most); a tiny preview 512 (its least); shadow_resolution, where set, is the size."""
    scene = cube_scene((0, 1, 0), floor=100)
    scene.setup()
    scene.camera.ortho_height = 3.0
    assert [fitted_size(scene, size) for size in ((320, 180), (1920, 1080), (64, 36))] \
        == [1536, 4096, 512]
    scene.shadow_resolution = 700
    assert fitted_size(scene, (1920, 1080)) == 700


@pytest.mark.usefixtures("gl_context")
def test_shadow_resolution_sets_the_map_drawn(gl_context, monkeypatch):
    """The map drawn is shadow_resolution texels a side (else the automatic 768 here),
    and its shadow the same cube's."""
    from hfrender.renderer.shadows import ShadowPass

    made, make = [], ShadowPass._make
    monkeypatch.setattr(ShadowPass, "_make", lambda self, size: (made.append(size),
                                                                 make(self, size))[1])
    scene = cube_scene((0, 1, 0))
    scene.shadow_resolution = 4096
    picture = draw(gl_context(), scene)
    automatic = draw(gl_context(), cube_scene((0, 1, 0)))
    assert made == [4096, 768]
    inside, margin = footprint()
    for shown in (picture, automatic):
        check_shadow(shown, inside, margin, 1.0)
    assert scene.shadow_resolution == 4096


def test_shadow_resolution_is_checked_in_one_line():
    with pytest.raises(InputError) as caught:
        class Bad(hf.Scene):
            shadow_resolution = 100
    assert str(caught.value) == ("Bad.shadow_resolution=100 must be an integer [256, 8192] "
                                 "texels a side, or None (from the output's size)")
    scene = cube_scene((0, 1, 0))
    with pytest.raises(InputError) as caught:
        scene.shadow_resolution = 2048.0
    assert str(caught.value) == ("CubeOverFloor.shadow_resolution=2048.0 must be an integer "
                                 "[256, 8192] texels a side, or None (from the output's size)")
    scene.shadow_resolution = None
    assert scene.shadow_resolution is None and hf.Scene.shadow_resolution is None


STILL = '''import math
import hfrender as hf


class Still(hf.Scene):
    shadows = True

    def setup(self):
        self.add(hf.Plane(scale=12, rotation=(-math.pi / 2, 0, 0)))
        self.cube = self.add(hf.Cube(position=(0, 1.5, 0)))
        self.camera.position = (0, 4, 7)
        self.camera.look_at((0, 0.5, 0))
        self.camera.f_stop = 2.0
        self.camera.focus_distance = 7.0

    def update(self, t):
        self.cube.position = (MOVE * t, 1.5, 0)
'''


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("move, maps", [(0.0, 1), (1.0, 8)])
def test_the_map_is_drawn_once_while_its_casters_stand_still(tmp_path, monkeypatch, move,
                                                             maps):
    """--dof lens, 4 samples, 2 frames (8 sub-frames, each its own time and lens point):
    a scene whose casters stand still draws its map once, not 8 times (was: 8); one whose
    cube moves, at every sub-frame; the picture as when every map is drawn. (Counted by
    renderer: the render's own, and those the render makes to look at the scene first; by
    the pass itself, held: by id(), a released one's id reused counted two as one, 1 in ~5
    runs.)"""
    from collections import Counter

    from hfrender.renderer import shadows

    drawn, real = [], shadows.ShadowPass._draw
    monkeypatch.setattr(shadows.ShadowPass, "_draw", lambda self, *a: (
        drawn.append(self), real(self, *a))[1])
    path = tmp_path / "still.py"
    path.write_text(STILL.replace("MOVE", repr(move)))
    settings = dict(size=(96, 64), samples=4, dof="lens", backend="cpu", fps=4)
    kept, _ = render_frames(path, count=2, **settings)
    assert max(Counter(drawn).values()) == maps
    drawn.clear()
    monkeypatch.setattr(shadows, "casting", lambda *a: object())  # (never equal: every one)
    every, _ = render_frames(path, count=2, **settings)
    assert max(Counter(drawn).values()) == 8
    assert kept.tobytes() == every.tobytes()
