"""A Group's opacity and visible pass to the objects in it (manim's group.set_opacity):
an object is drawn at its own opacity times every group's it lies in, and not at all where
one of them is hidden; only a Group passes them on, not a parent object."""

import logging

import numpy as np
import pytest

import hfrender as hf
from hfrender.errors import InputError
from hfrender.scene import past_white
from hfrender.scene.in_view import nothing_seen
from hfrender.scene.nodes import drawn_opacity
from hfrender.scene.ready import drawn_state
from tests.render_helpers import render_frames
from tests.test_opacity import LENS, _code, _scene, _square, transparent_still

RED = _square("red", 0, 0, "(1.0, 0.0, 0.0)", 1.0)  # opaque itself: its groups' alone
GROUP = "        self.group = hf.Group(opacity={0}, visible={1})\n        self.add(self.group)\n"


def _in(body, parent):
    return body.replace("opacity=1.0))", f"opacity=1.0, parent={parent}))")


def _render(tmp_path, body, name="squares.py", update="        pass", **settings):
    settings = {"count": 1, "size": (64, 36), "samples": 2, **settings}
    frames, _ = render_frames(_scene(tmp_path, body, update=update, name=name), **settings)
    return frames[0]


@pytest.mark.parametrize("hdr", ["off", "on"])
def test_a_group_at_half_opacity_mixes_its_red_plane_with_blue(tmp_path, hdr):
    """Was: a Group had no opacity (group.opacity = 0.5 said to set each object's)."""
    frame = _render(tmp_path, GROUP.format(0.5, True) + _in(RED, "self.group"), hdr=hdr)
    assert frame[18, 32].tolist() == [188, 0, 188] == [_code(0.5), 0, _code(0.5)]
    assert frame[2, 2].tolist() == [0, 0, 255]


def test_nested_groups_multiply_and_so_does_the_objects_own(tmp_path):
    inner = "        self.inner = hf.Group(opacity=0.5, parent=self.group)\n"
    frame = _render(tmp_path, GROUP.format(0.5, True) + inner + _in(RED, "self.inner"))
    assert frame[18, 32].tolist() == [_code(0.25), 0, _code(0.75)]
    own = _in(RED, "self.group").replace("opacity=1.0,", "opacity=0.5,")
    frame = _render(tmp_path, GROUP.format(0.5, True) + own, name="own.py")
    assert frame[18, 32].tolist() == [_code(0.25), 0, _code(0.75)]


def test_a_hidden_group_hides_its_objects_and_nested_groups_ones(tmp_path):
    inner = "        self.inner = hf.Group(parent=self.group)\n"
    frame = _render(tmp_path, GROUP.format(1.0, False) + inner + _in(RED, "self.inner"))
    assert (frame == [0, 0, 255]).all()


def test_a_parent_objects_opacity_and_visible_are_its_own(tmp_path):
    """As Blender's parent: a hidden or faded object leaves its children as they are."""
    parent = "        self.box = self.add(hf.Cube(position=(3, 0, 0), visible=False, " \
             "opacity=0.5))\n"
    frame = _render(tmp_path, parent + _in(RED, "self.box").replace("(0, 0, 0)", "(-3, 0, 0)"))
    assert frame[18, 32].tolist() == [255, 0, 0]


def test_a_group_fades_by_smooth_t_in_update(tmp_path):
    update = "        self.group.opacity = hf.smooth(t)"
    frame = _render(tmp_path, GROUP.format(0.0, True) + _in(RED, "self.group"), update=update,
                    duration=1.0, fps=2, first_frame=1, samples=1)
    a = hf.smooth(0.5)
    assert a == pytest.approx(0.5)
    assert frame[18, 32].tolist() == [_code(a), 0, _code(1 - a)]


def test_a_text_a_cube_and_a_model_in_groups_draw_as_at_that_opacity_of_their_own(tmp_path):
    """The text's uniform, the cube's instance row and the model's uniform all read the
    opacity drawn (0.5 x 0.5 of the groups), not their own 1."""
    (tmp_path / "tri.obj").write_text("v -0.5 -0.5 0\nv 0.5 -0.5 0\nv 0 0.5 0\nf 1 2 3\n")
    things = ("        self.a = self.add(hf.Text('Hi', height=0.6, position=(-1.2, 0, 0), "
              "opacity={0}{1}))\n"
              "        self.b = self.add(hf.Cube(rotation=(0.4, 0.5, 0), scale=0.6, "
              "opacity={0}{1}))\n"
              "        self.c = self.add(hf.Mesh.load('tri.obj', position=(1.2, 0, 0), "
              "opacity={0}{1}))\n")
    inner = "        self.inner = hf.Group(opacity=0.5, parent=self.group)\n"
    grouped = _render(tmp_path, GROUP.format(0.5, True) + inner +
                      things.format(1.0, ", parent=self.inner"), name="a.py", samples=4)
    own = _render(tmp_path, things.format(0.25, ""), name="b.py", samples=4)
    assert np.array_equal(grouped, own)
    assert (grouped != [0, 0, 255]).any(axis=-1).sum() > 100


def test_a_texts_depth_for_dof_depth_reads_its_groups_opacity(tmp_path):
    """A text writes its depth where its coverage times its opacity reaches a half: at its
    group's 0.25 nowhere, so --dof depth blurs it by the backdrop's (in focus), as a text
    of its own 0.25 (was, reading its own 1: by its own depth, out of focus, 65 codes
    apart)."""
    lens = ("        self.camera.orthographic = False\n        self.camera.f_stop = 1.4\n"
            "        self.camera.focal_length_mm = 100\n"
            "        self.camera.focus_distance = 25.0\n        self.back = self.add(hf.Plane("
            "position=(0, 0, -20), scale=60, color=(0.0, 0.0, 1.0), shader='flat'))\n")
    text = "        self.a = self.add(hf.Text('Hi', height=0.3, color='red', opacity={0}{1}))\n"
    settings = {"size": (128, 72), "samples": 4, "dof": "depth"}
    grouped = _render(tmp_path, lens + GROUP.format(0.25, True) +
                      text.format(1.0, ", parent=self.group"), name="a.py", **settings)
    own = _render(tmp_path, lens + text.format(0.25, ""), name="b.py", **settings)
    assert np.array_equal(grouped, own)
    assert (grouped != [0, 0, 255]).any(axis=-1).sum() > 100


def test_a_transparent_output_has_the_groups_opacity_as_alpha(tmp_path):
    png = transparent_still(tmp_path, GROUP.format(0.5, True) + _in(RED, "self.group"))
    assert abs(int(png[18, 32, 3]) - 127.5) <= 0.5 and png[18, 32, :3].tolist() == [255, 0, 0]


def test_depth_of_field_by_depth_names_the_opacity_its_groups_give(tmp_path, caplog):
    body = GROUP.format(0.5, True) + _in(RED, "self.group") + LENS
    with caplog.at_level(logging.WARNING):
        _render(tmp_path, body, size=(32, 18), dof="depth")
    told = [r.getMessage() for r in caplog.records if "opacity" in r.getMessage()]
    assert told == ["self.red (a Plane) has opacity 0.5 (its own 1 times its groups'): "
                    "a translucent object writes no depth or velocity, so --dof depth blurs "
                    "it by the depth of the opaque surface behind it: use --dof lens"]


def test_the_scene_checks_take_a_hidden_or_faded_groups_objects_as_not_drawn():
    class Lamps(hf.Scene):
        def setup(self):
            self.camera.position = (0, 0, 5)
            self.camera.look_at((0, 0, 0))
            self.lamps, self.away = hf.Group(visible=False), hf.Group(opacity=0.0)
            self.gone = self.add(hf.Sphere(emissive=3.0, parent=self.lamps))
            self.behind = self.add(hf.Sphere(position=(0, 0, 9), parent=self.away))

    scene = Lamps()
    scene.setup()
    assert nothing_seen(scene, (64, 36)) is None and past_white(scene) is None
    scene.lamps.visible, scene.away.opacity = True, 0.5
    assert drawn_opacity(scene.behind) == 0.5
    assert nothing_seen(scene, (64, 36)) is None  # (the lamp is seen now)
    assert past_white(scene).startswith("self.gone (a Sphere) with emissive 3")
    scene.gone.visible = False
    assert nothing_seen(scene, (64, 36)) == ["self.behind (a Sphere) is behind the camera"]


def test_a_groups_opacity_and_visible_are_part_of_the_state_drawn():
    """The checks that a scene is a function of t compare a parent by its lineage: a
    group's opacity set only past a time is a difference too."""
    group = hf.Group(position=(1, 0, 0))
    scene = hf.Scene()
    scene.add(hf.Cube(parent=group))
    before = dict(drawn_state(scene))["objects[0].parent"]
    group.opacity, group.visible = 0.5, False
    assert dict(drawn_state(scene))["objects[0].parent"] == before + " at opacity 0.5 hidden"


@pytest.mark.parametrize(("name", "value", "said"), [
    ("opacity", 1.5, "Group.opacity=1.5 must be a number 0..1 (0 not drawn, 1 opaque; fade in "
                     "over 1 s: obj.opacity = hf.linear(t) in update(t))"),
    ("visible", "no", "Group.visible='no' must be True or False"),
])
def test_a_bad_group_opacity_or_visible_is_one_line(name, value, said):
    with pytest.raises(InputError) as info:
        hf.Group(**{name: value})
    assert str(info.value) == said
    assert hf.Group().opacity == 1.0 and hf.Group().visible is True
