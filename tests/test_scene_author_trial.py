"""What a scene author bringing models met (a new-user trial): a position that is no
number named as such, camera names that point to f_stop, a read-only property said so, and
model files that are not what their suffix says told why they hold no triangles."""

import pytest

import hfrender as hf
from hfrender.scene import meshes
from hfrender.scene.camera import Camera
from hfrender.scene.checks import UnknownAttributeError

trimesh = pytest.importorskip("trimesh", reason="the models extra: pip install -e '.[dev]'")


@pytest.fixture
def ico(tmp_path):
    path = tmp_path / "ico.glb"
    trimesh.creation.icosphere(subdivisions=1).export(path)
    return path


def test_a_models_position_set_to_text_is_the_positions_error(ico):
    """Was: "hf.Mesh('0, 0, 0'): a model is loaded with hf.Mesh.load('0, 0, 0')"."""
    model = hf.Mesh.load(ico)
    with pytest.raises(hf.InputError, match=r"^Mesh\.position='0, 0, 0' must be 3 finite "
                       r"numbers \(x, y, z\) in metres$"):
        model.position = "0, 0, 0"
    with pytest.raises(meshes.ModelError, match=r"^hf\.Mesh\('ico\.glb'\): a model is loaded "
                       r"with hf\.Mesh\.load\('ico\.glb'\)$"):
        hf.Mesh("ico.glb")  # the hint stays where it helps: a path given to the class


@pytest.mark.parametrize("name, value, said", [
    # was: "did you mean 'has_dof'?", which cannot be set
    ("dof", True, r"^Camera has no attribute 'dof'; depth of field is on where the camera has "
     r"an f-stop: set f_stop \(e\.g\. 2\.8\) and focus_distance$"),
    ("use_dof", True, r"^Camera has no attribute 'use_dof'; depth of field is on where"),
    # was: "did you mean 'aperture_blades'?" (then "aperture_blades=2.8 must be whole")
    ("aperture", 2.8, r"^Camera has no attribute 'aperture'; aperture is another tool's name "
     r"\(Blender's, manim's\): here it is 'f_stop'$"),
    # was: Python's "property 'has_dof' of 'Camera' object has no setter"
    ("has_dof", True, r"^Camera\.has_dof is read-only \(it follows f_stop: set that\)$"),
    ("fstop", 2.0, r"^Camera has no attribute 'fstop'; did you mean 'f_stop'\?$"),
])
def test_camera_names_of_other_tools_point_to_what_sets_depth_of_field(name, value, said):
    camera = Camera()
    with pytest.raises(UnknownAttributeError, match=said):
        setattr(camera, name, value)
    camera.f_stop = 2.8
    assert camera.has_dof and camera.f_stop == 2.8


def _stl(tmp_path):
    path = tmp_path / "whole.stl"
    trimesh.creation.icosphere(subdivisions=1).export(path)
    return path


@pytest.mark.parametrize("name, content, said", [
    ("cut.stl", lambda whole: whole.read_bytes()[:2000],
     r"cut\.stl: the file has no triangles: not a whole binary STL file \(its header says 80 "
     r"triangles, 4,084 bytes; the file has 2,000\): cut short, or not an STL file$"),
    ("text.stl", lambda whole: b"hello world\n" * 10,
     r"text\.stl: the file has no triangles: text that is not an ASCII STL \(which begins "
     r"'solid'\): not an STL file\?$"),
    ("noise.obj", lambda whole: bytes(range(256)) * 4,
     r"noise\.obj: the file has no triangles: no vertex lines \('v x y z'\): not an OBJ file\?$"),
    ("points.obj", lambda whole: b"v 0 0 0\nv 1 0 0\nv 0 1 0\n",
     r"points\.obj: the file has no triangles: vertices but no face lines \('f \.\.\.'\): "
     r"points or lines, not a mesh$"),
])
def test_a_model_file_that_is_not_what_its_suffix_says_is_told_why(tmp_path, name, content,
                                                                     said):
    """Was: "the file has no triangles (a model needs a triangle mesh)" for each."""
    whole = _stl(tmp_path)
    assert hf.Mesh.load(whole).bounds is not None  # the whole file loads
    bad = tmp_path / name
    bad.write_bytes(content(whole))
    with pytest.raises(meshes.ModelError, match=said):
        hf.Mesh.load(bad)


def test_a_mesh_made_without_load_is_refused_at_the_add_that_takes_it(tmp_path, capsys):
    """Was: accepted, then "this Mesh has no model" at the render, with no file or line;
    its ``bounds`` an AttributeError."""
    from hfrender.cli import main

    scene = tmp_path / "bare.py"
    scene.write_text("import hfrender as hf\n\nclass Bare(hf.Scene):\n    duration = 0.1\n\n"
                     "    def setup(self):\n        self.add(hf.Mesh(color='red'))\n")
    assert main(["still", str(scene), "-o", str(tmp_path / "x.png"), "--size", "32x18"]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: scene error in setup(): ModelError: this Mesh has no model: make it "
        f"with hf.Mesh.load(path) ({scene}:7)\n")
    with pytest.raises(meshes.ModelError, match=r"^this Mesh has no model"):
        hf.Mesh().bounds  # noqa: B018 - the lookup is the test
    assert not (tmp_path / "x.png").exists()


def test_a_mesh_subclass_keeps_a_field_of_its_own_named_model(ico):
    """The review's: a public ``Mesh.model`` property took the name from a subclass's field
    (``Car.load(p)``: "'str' object has no attribute 'key'")."""
    from dataclasses import dataclass

    @dataclass(eq=False)
    class Car(hf.Mesh):
        model: str = "sedan"

    car = Car.load(ico)
    assert car.model == "sedan" and car.triangles == 80
    assert car.geometry == hf.Mesh.load(ico).geometry
    scene = hf.Scene()
    assert scene.add(car) is car


PINHOLE_LATER = """
import hfrender as hf

class Pin(hf.Scene):
    duration = 0.5

    def setup(self):
        self.add(hf.Plane(position=(0, 0, -3), scale=4, color=(0.2, 0.6, 0.9)))
        self.add(hf.Sphere(position=(0.5, 0, 0), radius=0.3, color=(1, 0.5, 0.1)))
        self.camera.position = (0, 0, 3)
        self.camera.f_stop, self.camera.focus_distance = 1.4, 3.0

    def update(self, t):
        self.camera.f_stop = 1.4 if t < 0.25 else None
"""


def test_a_camera_that_becomes_a_pinhole_renders_sharp_in_depth_mode(tmp_path):
    """--dof depth refused ("camera.f_stop is None (a pinhole)", no t or frame) a camera
    whose f-stop update(t) takes away, where --dof lens renders those frames sharp; a still
    of such a frame was told to set the f-stop in setup(), which it did (a DoF trial)."""
    import imageio.v3 as iio
    import numpy as np

    from hfrender.cli import main

    scene = tmp_path / "pin.py"
    scene.write_text(PINHOLE_LATER)
    small = ["--size", "64x36", "--samples", "4", "--quiet"]
    for mode in ("lens", "depth"):
        assert main(["render", str(scene), "-o", str(tmp_path / mode / "%02d.png"), "--dof",
                     mode, *small]) == 0
    lens, depth = (iio.imread(tmp_path / m / "14.png") for m in ("lens", "depth"))
    np.testing.assert_array_equal(lens, depth)  # the pinhole's frame: sharp in both
    assert main(["still", str(scene), "-t", "0.4", "--dof", "depth", "-o",
                 str(tmp_path / "s.png"), *small]) == 0
    np.testing.assert_array_equal(iio.imread(tmp_path / "s.png"),
                                  iio.imread(tmp_path / "depth" / "12.png"))
    for mode in ("lens", "auto"):  # (a review: the lens hint refused the pinhole there)
        assert main(["still", str(scene), "-t", "0.4", "--dof", mode, "-o",
                     str(tmp_path / f"{mode}.png"), "--samples", "auto", *small[:2],
                     "--quiet"]) == 0
    # a pinhole's focus means nothing: one within the focal length is not refused
    scene.write_text(PINHOLE_LATER.replace("else None", "else None\n"
                                           "        self.camera.focus_distance = 0.04 if "
                                           "t >= 0.25 else 3.0"))
    assert main(["still", str(scene), "-t", "0.4", "--dof", "depth", "-o",
                 str(tmp_path / "f.png"), *small]) == 0
