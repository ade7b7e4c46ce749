"""A group added to the scene takes the objects that join it later in setup() (manim's VGroup
draws a submobject added after it); one joining in update(t) is refused
(hfrender/scene/nodes.py)."""

import pytest
from test_parenting import H, W, _picture, _pixel
from test_render import write_scene

import hfrender as hf
from hfrender.cli import main
from hfrender.errors import InputError


class Late(hf.Scene):
    """A red cube given to a group before it is added; a lime one given after, a blue one
    whose parent is set to it after, and a white one in a group put in it after."""

    background = (0, 0, 0)
    ambient = 1.0

    def setup(self):
        self.group = hf.Group(hf.Cube(position=(-1.5, 0, 0), scale=0.5, color="red"),
                              position=(0, -0.5, 0))
        self.add(self.group)
        self.lime = self.group.add(hf.Cube(position=(1.5, 0, 0), scale=0.5, color="lime"))
        self.blue = hf.Cube(position=(0, 1, 0), scale=0.5, color="blue")
        self.blue.parent = self.group
        inner = hf.Group(position=(0, 2, 0))
        inner.add(hf.Cube(scale=0.5, color="white"))
        self.group.add(inner)
        self.camera.position = (0, 0, 8)
        self.camera.orthographic, self.camera.ortho_height = True, 6.0


def test_objects_joining_an_added_group_in_setup_are_drawn(gl_context):
    ctx = gl_context(size=(W, H)).ctx
    scene = Late()
    color, _, renderer = _picture(ctx, scene)
    renderer.release()
    for world, want in (((-1.5, -0.5, 0), (255, 0, 0)), ((1.5, -0.5, 0), (0, 255, 0)),
                        ((0, 0.5, 0), (0, 0, 255)), ((0, 1.5, 0), (255, 255, 255))):
        x, y = _pixel(scene.camera, world)
        assert tuple(color[int(y), int(x), :3]) == want, world
    assert [tuple(o.color) for o in scene.objects] == [
        (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (1.0, 1.0, 1.0)]


def test_a_model_joining_an_added_group_is_drawn_once(tmp_path):
    (tmp_path / "tri.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")

    class Models(hf.Scene):
        def setup(self):
            self.group = self.add(hf.Group())
            self.tri = hf.Mesh.load(tmp_path / "tri.obj", parent=self.group)
            self.group.add(self.tri)  # (again: no second)
            self.cube = self.add(hf.Cube(parent=self.group))  # joined, then added: once

    scene = Models()
    scene.setup()
    assert scene.objects == [scene.tri, scene.cube] and "tri.obj" in scene.tri.geometry
    with pytest.raises(InputError, match=r"^add\(\): this Cube was added already"):
        scene.add(scene.cube)


JOINS = """
class Joins(hf.Scene):
    duration = 0.2

    def setup(self):
        self.swarm = self.add(hf.Group())
        self.kept = self.add(hf.Cube(parent=self.swarm))

    def update(self, t):
        self.kept.parent = self.swarm if t < 0.1 else None  # added: state, no refusal
        {joins}
"""


@pytest.mark.parametrize("joins", ["hf.Sphere(parent=self.swarm)",
                                   "self.swarm.add(hf.Sphere())"])
def test_an_object_joining_an_added_group_in_update_is_one_line(tmp_path, capsys, joins):
    scene = write_scene(tmp_path, JOINS.format(joins=joins))
    assert main(["still", str(scene), "-o", str(tmp_path / "f.png"), "--size", "32x18",
                 "--samples", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    said = ("Sphere.parent = self.swarm in update(t): a Sphere not added joins the scene "
            "with the group it joins, and objects join once, in setup() (added at every "
            "update they pile up); give it to the group there, and set its visible from t "
            "in update(t)")
    assert said in err and err.count("hfrender: error") == 1, err
    assert not (tmp_path / "f.png").exists()


def test_an_object_refused_as_it_is_made_in_an_added_group_is_not_drawn(tmp_path):
    """Its parent is set before its other fields are checked (a dataclass's ``__init__``
    sets them in order): it joined the group, and the scene, then its radius was refused;
    a script that went on had a half-made object drawn. Now it joins once made whole."""
    class Caught(hf.Scene):
        def setup(self):
            self.group = self.add(hf.Group())
            made = (lambda: hf.Sphere(parent=self.group, radius=-1),
                    lambda: hf.Text("Hi", parent=self.group, height="tall"),
                    lambda: hf.Mesh.load(tmp_path / "none.obj", parent=self.group))
            for make, said in zip(made, (r"^Sphere\.radius=-1 must be",
                                         r"^Text\.height='tall' must be",
                                         r"none\.obj: model file not found"), strict=True):
                with pytest.raises(Exception, match=said):
                    make()
            self.ball = hf.Sphere(parent=self.group, radius=0.25)

    scene = Caught()
    scene.setup()
    assert scene.objects == [scene.ball] and scene.group.children == [scene.ball]
    assert scene.ball._added_to is scene and scene.ball.radius == 0.25


@pytest.mark.parametrize("joins", ["hf.Mesh(color='red', parent=self.group)",
                                   "self.group.add(hf.Mesh(color='red'))"])
def test_a_mesh_without_a_model_joining_an_added_group_is_refused_at_its_line(
        tmp_path, capsys, joins):
    """As ``self.add(hf.Mesh())`` is (was: joined, then "this Mesh has no model" at the
    render, naming no line of the scene)."""
    scene = tmp_path / "bare.py"
    scene.write_text("import hfrender as hf\n\nclass Bare(hf.Scene):\n    duration = 0.1\n\n"
                     "    def setup(self):\n        self.group = self.add(hf.Group())\n"
                     f"        {joins}\n")
    assert main(["still", str(scene), "-o", str(tmp_path / "x.png"), "--size", "32x18"]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: scene error in setup(): ModelError: this Mesh has no model: make it "
        f"with hf.Mesh.load(path) ({scene}:8)\n")
    assert not (tmp_path / "x.png").exists()


def test_a_mesh_without_a_model_refused_as_it_joins_is_not_one_of_the_groups():
    from hfrender.scene.model_files import ModelError

    scene, bare = hf.Scene(), hf.Mesh()
    group = scene.add(hf.Group())
    with pytest.raises(ModelError, match=r"^this Mesh has no model"):
        bare.parent = group
    assert scene.objects == [] and group.children == []
    assert scene.add(hf.Cube(parent=group)) is scene.objects[0] and len(group.children) == 1
    inner = hf.Group(hf.Cube(), hf.Mesh())  # a group partly joined: one of the group's
    with pytest.raises(ModelError, match=r"^this Mesh has no model"):
        group.add(inner)
    assert group.children[1] is inner and scene.objects[1] is inner.children[0]


def test_a_dataclass_subclass_of_group_takes_objects_and_joins_once_made():
    """A user's ``@dataclass`` Group (its own ``__init__``, made by dataclass, never runs
    Group's): was AttributeError "'Row' object has no attribute '_given'" at its first
    object; now its objects, added in ``__post_init__``, join it, and it joins the added
    group given as its parent once made, with them."""
    from dataclasses import dataclass

    @dataclass(eq=False)
    class Row(hf.Group):
        count: int = 3

        def __post_init__(self):
            for i in range(self.count):
                self.add(hf.Cube(position=(float(i), 0.0, 0.0), scale=0.5))

    scene = hf.Scene()
    outer = scene.add(hf.Group())
    row = Row(count=2, position=(0.0, 1.0, 0.0), opacity=0.5, parent=outer)
    assert [c.position for c in row.children] == [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0)]
    assert scene.objects == row.children and outer.children == [row]
    assert row.children[1].world_matrix()[:3, 3].tolist() == [1.0, 1.0, 0.0]
