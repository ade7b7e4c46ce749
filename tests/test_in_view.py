"""What a scene shows at its first look: nothing in view, or positions coarser than a pixel
(hfrender/scene/in_view.py), said once before the render (a trial's blank and noisy
pictures went without a word)."""

import pytest
import trimesh
from test_render import write_scene

from hfrender.cli import main


def _said(tmp_path, caplog, body, name="Look"):
    scene = write_scene(tmp_path, body)
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "v.png"), "--size", "320x180",
                     "--samples", "1", "--quiet"]) == 0
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith(f"{name}:")]


@pytest.mark.parametrize("objects, camera, why", [
    ("hf.Sphere(position=(0, 0, 10))", "", "the Sphere at (0, 0, 10) is behind the camera"),
    ("hf.Cube(position=(50, 0, 0))", "", "the Cube at (50, 0, 0) is outside the picture"),
    ("hf.Sphere(position=(0, 0, -3000), radius=900)", "",  # its near side 2104 m away
     "the Sphere at (0, 0, -3000) is past camera.far (1000 m) at 2104 m"),
    # 1 mm across, 3.9995 m away: 320 px over 36 mm at 50 mm, 1 mm = 0.111 px
    ("hf.Sphere(radius=0.0005)", "", "the Sphere at (0, 0, 0) is 0.11 px across (under a pixel)"),
    ("hf.Sphere(position=(0, 0, 3.7), radius=0.1)", "self.camera.near = 0.5",  # 0.2-0.4 m
     "the Sphere at (0, 0, 3.7) is nearer than camera.near (0.5 m)"),
])
def test_a_picture_with_nothing_in_view_is_said(tmp_path, caplog, objects, camera, why):
    said = _said(tmp_path, caplog, f"""
    class Look(hf.Scene):
        duration = 0.2

        def setup(self):
            self.add({objects})
            self.camera.position = (0, 0, 4)
            self.camera.look_at((0, 0, 0))
            {camera or "pass"}
    """)
    assert said == [f"Look: no object is in view at t=0 s: {why}; the frames show the "
                    "background alone"]  # (a still: its one frame)


def test_one_object_in_view_is_enough_and_the_camera_inside_one_is_in_view(tmp_path, caplog):
    assert _said(tmp_path, caplog, """
    class Look(hf.Scene):
        duration = 0.2

        def setup(self):
            self.add(hf.Cube(position=(50, 0, 0)), hf.Sphere(scale=0.3))
            self.add(hf.Sphere(position=(0, 0, 4), scale=20, color="blue"))  # a sky around
            self.camera.position = (0, 0, 4)
    """) == []


# at 1e5 m float32 steps 7.8 mm (2**-7); the model's nearest point is 3 m from the camera,
# where a pixel is 3 * 36 / 50 / 320 = 6.75 mm: 1.16 px
@pytest.mark.parametrize("at, said", [(1e5, True), (1e3, False)])
def test_a_model_far_from_the_origin_is_said_to_be_noisy(tmp_path, caplog, at, said):
    """A model at survey coordinates: float32 world positions there step about a pixel,
    and its facet normals (from their derivatives) turn to noise."""
    trimesh.creation.icosphere().apply_translation([at, 0, 0]).export(tmp_path / "far.glb")
    told = _said(tmp_path, caplog, f"""
    class Look(hf.Scene):
        duration = 0.2

        def setup(self):
            self.add(hf.Mesh.load("far.glb"))
            self.camera.position = ({at}, 0, 4)
            self.camera.look_at(({at}, 0, 0))
    """)
    assert told == ([
        "Look: the Mesh far.glb is 1e+05 m from the origin, where 32-bit positions step 7.8 "
        "mm, 1.2 px at its distance from the camera: its shading will be noisy; move the "
        "scene near the origin (a model's position = -its bounds' centre)"] if said else [])


def test_an_object_that_flies_in_is_no_mistake_but_a_range_without_it_is(tmp_path, caplog):
    """Nothing in view at the first frame alone was said of a ball flying in (a review);
    the frames drawn are looked at (8 of them), a --frames range's own."""
    scene = write_scene(tmp_path, """
    class Look(hf.Scene):
        duration = 1.0

        def setup(self):
            self.ball = self.add(hf.Sphere())
            self.camera.position = (0, 0, 4)

        def update(self, t):
            self.ball.position = (-10 + 12 * t, 0, 0)
    """)
    told = []
    for frames in ("0:30", "0:9"):  # in view from t = 0.7; not in frames 0..8
        caplog.clear()
        with caplog.at_level("WARNING"):
            assert main(["render", str(scene), "-o", str(tmp_path / f"{frames[2:]}.mp4"),
                         "--size", "64x36", "--samples", "1", "--frames", frames,
                         "--quiet"]) == 0
        told.append([r.getMessage() for r in caplog.records if "Look:" in r.getMessage()])
    assert told == [[], ["Look: no object is in view at any of 8 times from t=0 to 0.266667 s: "
                         "self.ball (a Sphere) is outside the picture; the frames show "
                         "the background alone"]]


@pytest.mark.parametrize("body", [
    # a floor of 100 km around the origin, seen close: fine where it is seen (was: "noisy")
    """self.add(hf.Plane(rotation=(-math.pi / 2, 0, 0), scale=100000))
            self.camera.position = (0, 1.5, 4)
            self.camera.look_at((0, 0, 0))""",
    # a camera the render refuses: its own error, no guess about the view before it
    """self.add(hf.Sphere(position=(0, 0, 20)))
            self.camera.near, self.camera.far = 10, 5""",
])
def test_no_view_warning_where_the_picture_is_as_meant(tmp_path, caplog, body):
    scene = write_scene(tmp_path, f"""
    class Look(hf.Scene):
        duration = 0.2

        def setup(self):
            {body}
    """)
    with caplog.at_level("WARNING"):
        main(["still", str(scene), "-o", str(tmp_path / "v.png"), "--size", "320x180",
              "--samples", "1", "--quiet"])
    assert [r.getMessage() for r in caplog.records if r.getMessage().startswith("Look:")] == []
