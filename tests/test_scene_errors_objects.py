"""A scene's objects added wrongly: in update(t), twice, or made and never added, each
told at its line."""


import pytest
from test_render import write_scene

import hfrender as hf
from hfrender.cli import main
from hfrender.errors import InputError


def test_add_in_update_is_refused_at_its_line(tmp_path, capsys):
    """An object added in update(t) piled up (frame 29 drew every sphere since t=0, a
    still drew one), without a word. add() in update, or in a helper it calls, is refused."""
    scene = write_scene(tmp_path, """
    def more(scene, t):
        return scene.add(hf.Sphere(position=(t, 0, 0)))

    class Piles(hf.Scene):
        duration = 0.2

        def setup(self):
            self.add(hf.Cube())

        def update(self, t):
            more(self, t)
    """)
    assert main(["render", str(scene), "-o", str(tmp_path / "p.mp4"), "--size", "32x18",
                 "--quiet"]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: scene error in update(t) at t=0 s (output frame 0): InputError: "
        "Piles.add() in update(t): objects are added once, in setup() (added at every update "
        "they pile up); add it there and set its visible (or position) from t in update(t) "
        f"({scene}:6)\n")
    assert not (tmp_path / "p.mp4").exists()
    built = hf.Scene()  # outside update (a library caller building a scene): as before
    assert built.add(hf.Cube()) is built.objects[0]


def test_an_object_added_twice_is_refused_at_the_second_add(tmp_path, capsys):
    """Was taken: the object drawn twice in one place (its light counted twice where the
    scene's own shader adds it up)."""
    scene = write_scene(tmp_path, """
    class Twice(hf.Scene):
        duration = 0.1

        def setup(self):
            self.ball = self.add(hf.Sphere())
            self.add(self.ball)
    """)
    assert main(["render", str(scene), "-o", str(tmp_path / "t.mp4"), "--size", "32x18",
                 "--quiet"]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: scene error in setup(): InputError: add(): this Sphere was added "
        f"already; add a second one (hf.Sphere(...)) to draw two ({scene}:10)\n")
    two = hf.Scene()
    a, b = two.add(hf.Cube()), two.add(hf.Cube())  # alike, not the same: both drawn
    assert two.objects == [a, b] and a is not b
    c, d = two.add(hf.Sphere(), hf.Plane())  # several at once, as manim takes them (a
    assert two.objects == [a, b, c, d]  # trial: a bare TypeError, exit 1)
    with pytest.raises(TypeError, match=r"^add\(\) takes an object: call the class, "
                                        r"hf\.Sphere\(\), rather than pass it$"):
        two.add(hf.Sphere)
    with pytest.raises(InputError, match="was added already"):
        two.add(hf.Cube(), c)  # (each checked)
    with pytest.raises(TypeError, match=r"^add\(\) takes a Plane, Cube, Sphere or other "
                       r"Object3D, or a PointLight or SpotLight; got str \(a model: "
                       r"hf\.Mesh\.load\('torus\.obj'\)\)$"):
        two.add("torus.obj")


def test_a_mesh_added_twice_is_told_to_be_loaded_again(tmp_path):
    """Was: "add a second one (hf.Mesh(...))", which is refused (a model is loaded)."""
    import trimesh

    trimesh.creation.box().export(tmp_path / "box.obj")
    scene, box = hf.Scene(), hf.Mesh.load(str(tmp_path / "box.obj"))
    scene.add(box)
    with pytest.raises(InputError, match=r"^add\(\): this Mesh was added already; add a second "
                                         r"one \(hf\.Mesh\.load\(\.\.\.\)\) to draw two$"):
        scene.add(box)


@pytest.mark.parametrize("setup, said", [
    ("self.ball = hf.Sphere()\n            self.add(hf.Cube())",
     "Lost: self.ball (a Sphere) never added, so not drawn: self.add(self.ball) in setup() "
     "draws it"),
    ("self.rings = [self.add(hf.Cube()), hf.Cube()]\n            self.parts = {'a': hf.Plane()}",
     "Lost: self.rings[1] (a Cube), self.parts['a'] (a Plane) never added, so not drawn: "
     "self.add(self.rings[1]) in setup() draws it"),
    ("ball = hf.Sphere()",
     "Lost: setup() added no object: the frames show the background alone "
     "(self.add(hf.Sphere(...)) adds one)"),
    ("self.ball = self.add(hf.Sphere())", None),
    # a Group made and never added, nor its objects: not drawn, unsaid (a trial: a row laid
    # out with hf.arrange, self.add(self.row) forgotten)
    ("self.add(hf.Cube())\n            self.row = hf.Group(hf.Cube(), hf.Sphere())",
     "Lost: self.row (a Group) never added, so not drawn: self.add(self.row) in setup() "
     "draws it"),
    # a Group never added around an added object, given another in setup(): that one was
    # not drawn, unsaid (a trial); said by where it lies, nested groups' too
    ("self.s = self.add(hf.Sphere())\n            self.g = hf.Group(self.s)\n"
     "            self.g.add(hf.Cube(), hf.Group(hf.Cone()))",
     "Lost: self.g.children[1] (a Cube), self.g.children[2].children[0] (a Cone) never "
     "added, so not drawn: self.add(self.g) in setup() draws it"),
    # added one by one into a Group never added: all drawn, nothing to say
    ("self.g = hf.Group(self.add(hf.Sphere()), self.add(hf.Cube()))", None),
    # manim's construct() beside a setup() that adds: drawn, nothing to say
    ("self.add(hf.Cube())\n\n        def construct(self):\n            pass", None),
])
def test_an_object_made_but_never_added_is_said(tmp_path, caplog, setup, said):
    """An object kept but never added (manim adds it as it plays; hfrender draws what
    setup() adds) rendered the background alone without a word (a trial)."""
    scene = write_scene(tmp_path, f"""
    class Lost(hf.Scene):
        duration = 0.2

        def setup(self):
            {setup}
    """)
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "l.png"), "--size", "32x18",
                     "--quiet"]) == 0
    told = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Lost:")]
    assert told == ([] if said is None else [said])


@pytest.mark.parametrize("update, said", [
    # one more each call (a user's script): as many as update(t) ran before the look
    ("self.g.add(hf.Cube())", "self.g.children[1] (a Cube), self.g.children[2] (a Cube)"),
    ("if len(self.g.children) == 1:\n                self.g.add(hf.Cube())",
     "self.g.children[1] (a Cube)"),
    ("self.g.children[0].position = (t, 0, 0)", None),  # its one object added: drawn
])
def test_an_object_update_puts_in_a_group_never_added_is_said(tmp_path, caplog, update, said):
    """update(t) giving a new object to a Group never added (whose other child was): not
    drawn and nothing said, the check having looked before update(t) ran (a trial); now
    said once, in the setup() check's words, once update(t) has run."""
    scene = write_scene(tmp_path, f"""
    class Lost(hf.Scene):
        duration = 0.2

        def setup(self):
            self.s = hf.Sphere()
            self.add(self.s)
            self.g = hf.Group(self.s)

        def update(self, t):
            {update}
    """)
    with caplog.at_level("WARNING"):
        assert main(["render", str(scene), "-o", str(tmp_path / "l.mp4"), "--size", "32x18",
                     "--samples", "2", "--quiet"]) == 0
    told = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Lost:")]
    if said is None:
        assert told == []
        return
    assert len(told) == 1 and told[0].startswith(f"Lost: {said}"), told
    assert told[0].endswith(" never added, so not drawn: self.add(self.g) in setup() draws it")
