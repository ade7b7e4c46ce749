"""A scene author's mistakes told at their own line, with the name meant: a misspelt keyword
of a scene object, a refused attribute of a class body, a name hfrender has not, a setup or
update of the wrong shape, a manim scene, a target set after look_at (its message names
this file). The camera, objects and update(t): test_scene_errors_*.py."""

import re

import imageio.v3 as iio
import pytest
from test_render import write_scene

import hfrender as hf
from hfrender.cli import main
from hfrender.errors import InputError


@pytest.mark.parametrize("line,said", [
    ("hf.Sphere(radious=2)", r"Sphere.__init__\(\) got an unexpected keyword argument "
     r"'radious' \({scene}:4\); did you mean radius=\?"),
    ("hf.Cube(colour=(1, 0, 0))", r"'colour' \({scene}:4\); did you mean color=\?"),
    ("hf.Plane(zzz=1)", r"'zzz' \({scene}:4\); Plane takes position, "),
    ("hf.Mesh.load('m.glb', postion=(0, 1, 0))", r"Mesh.load\(\) got an unexpected keyword "
     r"argument 'postion' \({scene}:4\); did you mean position=\?"),
    ("1 / 0", r"ZeroDivisionError: division by zero \({scene}:4\)\n"),
    # Blender's name: position, as for an attribute (difflib's nearest was rotation=)
    ("hf.Sphere(location=(0, 1, 0))", r"'location' \({scene}:4\); did you mean position=\?"),
    ("hf.Mesh.load('m.glb', location=(0, 1, 0))", r"'location' \({scene}:4\); did you mean "
     r"position=\?"),
    # a manim user's trial: hf.Text's keywords had no hint (its class is not in scene/)
    ("hf.Text('Hi', hieght=0.5)", r"Text.__init__\(\) got an unexpected keyword argument "
     r"'hieght' \({scene}:4\); did you mean height=\?"),
    ("hf.Text('Hi', colour='red')", r"'colour' \({scene}:4\); did you mean color=\?"),
    # manim's names of the round shapes' sizes, and of their axis
    ("hf.Cone(base_radius=0.3)", r"'base_radius' \({scene}:4\); did you mean radius=\?$"),
    ("hf.Torus(major_radius=1)", r"'major_radius' \({scene}:4\); did you mean radius=\?$"),
    ("hf.Torus(minor_radius=0.2)", r"'minor_radius' \({scene}:4\); did you mean tube=\?$"),
    ("hf.Cylinder(direction=(0, 0, 1))", r"'direction' \({scene}:4\); direction is manim's: a "
     r"Cylinder, Cone or Torus stands along y here \(y up\): turn it by rotation, radians "
     r"about x, then y, then z \(rotation=\(math\.pi / 2, 0, 0\) lays its axis along z\)$"),
    ("hf.Text('Hi', font_size=48)", r"'font_size' \({scene}:4\); font_size is another "
     r"tool's: a Text's size is its height, the cap height in metres \(0\.3 by default\), "
     r"not points; the default camera sees 2\.025 m high at the origin \(16:9\), manim's "
     r"frame 8 units: height = 0\.253 x a height in manim's units$"),
])


def test_a_mistake_in_a_scenes_init_is_the_scenes_line_not_a_bug_of_ours(tmp_path, capsys,
                                                                        line, said):
    """The scene's own ``__init__`` raised: its file and line (and, for a misspelt keyword of
    a scene object, the nearest it takes), not "internal error ... please report"; exit 1,
    or 2 for a misspelt keyword (bad input, as a misspelt attribute is: it was 1)."""
    scene = tmp_path / "typo.py"
    scene.write_text("import hfrender as hf\nclass Typo(hf.Scene):\n    def __init__(self):\n"
                     f"        self.thing = {line}\n")
    code = 1 if line == "1 / 0" else 2
    assert main(["render", str(scene), "-o", str(tmp_path / "t.mp4"), "--quiet"]) == code
    err = capsys.readouterr().err
    assert err.startswith("hfrender: error: scene error in Typo(): ") and err.count("\n") == 1
    assert re.search(said.format(scene=re.escape(str(scene))), err), err
    assert "internal error" not in err and not (tmp_path / "t.mp4").exists()


@pytest.mark.parametrize("line, said", [
    ("durration = 2.0", r"Scene has no attribute 'durration'; did you mean 'duration'\?"),
    ("background = (255, 0, 0)", r"C\.background=\(255, 0, 0\): the values must be numbers"),
    ("ambient = float('nan')", r"C\.ambient"),
    ("def updte(self, t):\n            pass", r"did you mean 'update'\?"),
])


def test_a_class_body_refusal_names_the_attributes_line_not_the_class_line(tmp_path, capsys,
                                                                          line, said):
    from hfrender.cli import main

    scene = write_scene(tmp_path, f"""
    class C(hf.Scene):
        duration = 0.1

        {line}
    """)
    assert main(["render", str(scene), "-o", str(tmp_path / "c.mp4"), "--size", "32x18",
                 "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert re.search(said, err) and err.endswith(f"({scene}:8)"), err  # line 8, not 5


@pytest.mark.parametrize("name,meant", [("Box", "Cube"), ("Ball", "Sphere"), ("Sphre", "Sphere"),
                                        ("motionblur", "motion_blur"), ("Quad", "Plane")])


def test_a_name_hfrender_has_not_suggests_the_one_it_has(name, meant):
    with pytest.raises(AttributeError, match=rf"^module 'hfrender' has no attribute "
                                             rf"'{name}'; did you mean hf\.{meant}\?$"):
        getattr(hf, name)
    with pytest.raises(AttributeError, match=r"^module 'hfrender' has no attribute 'zzz'$"):
        hf.zzz  # noqa: B018 - the lookup is the test


@pytest.mark.parametrize("name,hint", [
    # manim's own colours, its hex (was: CSS's 'red', 'blue' #0000FF for BLUE_E #236B8E)
    ("RED", "manim's RED is color='#FC6255' (color='red' is CSS's, '#FF0000')"),
    ("BLUE_E", "manim's BLUE_E is color='#236B8E' (or color='BLUE_E')"),
    ("DARK_BLUE", "manim's DARK_BLUE is color='#236B8E' (or color='DARK_BLUE')"),
    ("NAVY", "colours are given by name: color='navy' (or hex '#ff8800', or 3 numbers 0..1)"),
    ("DEGREES", "angles are radians: math.radians(90) for manim's 90 * DEGREES"),
    ("TAU", "use math.tau"),
    ("UP", "positions are (x, y, z) in metres, y up: UP is (0, 1, 0), RIGHT (1, 0, 0), OUT "
           "(0, 0, 1) towards the default camera"),
    ("rate_functions", "the rate functions are hf.linear, hf.smooth, hf.ease_in, hf.ease_out, "
                       "hf.ease_in_out, hf.there_and_back, hf.rush_into and hf.rush_from (any "
                       "function of s in 0..1 is one too): hfrender docs rendering "
                       "easing"),
    ("VGroup", "did you mean hf.Group?"),
    ("Circle", "the built-in shapes are hf.Plane, hf.Cube, hf.Sphere, hf.Cylinder, hf.Cone "
               "and hf.Torus (and hf.Text); others are models (hf.Mesh.load), and a flat one "
               "a thin hf.Cube or hf.Cylinder (a disc)"),
    ("MathTex", "there is no TeX: text is hf.Text('E = mc²', font='DejaVuSans.ttf') "
                "(Unicode in a font that has it: an installed font by its file's name, or a "
                ".ttf beside the scene; not TeX's layout; a formula made elsewhere can be a "
                "model, hf.Mesh.load)"),
    ("DirectionalLight", "the directional light (Blender's Sun) is the scene's "
                         "light_direction, light_strength, light_color and ambient (its "
                         "shadows = True casts shadows, light_angle = 10 softens them as an "
                         "area light's); lamps are hf.PointLight and hf.SpotLight, added "
                         "with self.add (up to 8)"),
    ("FadeIn", "there are no animations to play: update(t) sets every object from t alone (a "
               "fade in over 1 s: obj.opacity = hf.smooth(t)): hfrender docs rendering "
               "scenes"),
    ("Transform", "there are no animations to play: update(t) sets every object from t alone "
                  "(a fade in over 1 s: obj.opacity = hf.smooth(t)): hfrender docs "
                  "rendering scenes"),
    ("ValueTracker", "a value that changes is a function of t: compute it in update(t) "
                     "(hf.lerp, hf.Keyframes) and set the objects from it; update(t) runs for "
                     "every sub-frame"),
    ("always_redraw", "a value that changes is a function of t: compute it in update(t) "
                      "(hf.lerp, hf.Keyframes) and set the objects from it; update(t) runs "
                      "for every sub-frame"),
])
def test_a_manim_name_says_what_hfrender_does_instead(name, hint):
    """A manim user's trial: hf.RED, 45 * hf.DEGREES, hf.VGroup were "module 'hfrender' has
    no attribute 'RED'", the way to say it unsaid (and hf.FadeIn, hf.ValueTracker, a later
    trial's: bare too)."""
    with pytest.raises(AttributeError) as excinfo:
        getattr(hf, name)
    assert str(excinfo.value) == f"module 'hfrender' has no attribute {name!r}; {hint}"


def test_a_target_set_after_look_at_is_not_told_as_look_ats():
    cam = hf.Camera()
    cam.look_at((0, 0, 5))  # the default position: looks nowhere
    with pytest.raises(InputError, match=r"look_at was called at test_scene_errors\.py:\d+\)$"):
        cam.basis()
    cam.target = (0.0, 0.0, 5.0)
    with pytest.raises(InputError, match=r"away from it\)$"):
        cam.basis()


def test_an_error_in_a_helper_module_names_its_line_and_the_scenes(tmp_path, capsys,
                                                                    monkeypatch):
    """An error inside a module of the user's own, beside the scene, was told at the
    scene's calling line alone; hfrender's and Python's own frames are never named."""
    (tmp_path / "helpers.py").write_text("import math\n\n\ndef place(t):\n"
                                         "    return (math.log(t - t), 0, 0)\n")
    write_scene(tmp_path, """
    from helpers import place

    class Help(hf.Scene):
        duration = 0.2

        def setup(self):
            self.ball = self.add(hf.Sphere())

        def update(self, t):
            self.ball.position = place(t)
    """)
    monkeypatch.chdir(tmp_path)
    assert main(["still", "scene.py", "-o", "h.png", "--size", "32x18"]) == 1
    assert capsys.readouterr().err == (
        "hfrender: error: scene error in update(t) at t=0 s (output frame 0): ValueError: "
        "math domain error (helpers.py:5, called from scene.py:14)\n")


def test_scenes_of_two_folders_each_import_their_own_module_of_one_name(tmp_path,
                                                                      monkeypatch):
    """A batch's jobs in two folders, each scene importing its own common.py: the second
    scene got the first one's module (imported once per process), and its folder came
    after the first's on sys.path."""
    import sys

    from hfrender.scene.loader import load_scene

    lib = tmp_path / "lib"  # a library of the studio's on the path, no scene's folder
    lib.mkdir()
    (lib / "studio_rig.py").write_text("LOADS = []\nLOADS.append(1)\n")
    monkeypatch.syspath_prepend(str(lib))
    for i, (name, value) in enumerate((("a", 1.5), ("b", 2.5), ("a", 1.5))):
        folder = tmp_path / name
        folder.mkdir(exist_ok=True)
        (folder / "common.py").write_text(f"SIZE = {value}\n")
        (folder / "colour.py").write_text(f"COLOR = ({value / 3}, 0, 0)\n")
        (folder / "scene.py").write_text(
            "import hfrender as hf\nimport studio_rig\nfrom common import SIZE\n\n"
            "class S(hf.Scene):\n    duration = SIZE\n\n    def setup(self):\n"
            "        from colour import COLOR  # imported in setup() alone: as fresh\n"
            "        self.ball = self.add(hf.Sphere(color=COLOR))\n")
        scene = load_scene(folder / "scene.py")
        scene.setup()
        assert (scene.duration, scene.ball.color[0]) == (value, value / 3), name
        if i == 0:
            import studio_rig as rig  # the caller's too, now: left alone (it was run again)
    assert sys.modules["studio_rig"] is rig and rig.LOADS == [1]


@pytest.mark.parametrize("defined, shown, call, want", [
    ("def update(self):", "update()", "update(t)", "def update(self, t)"),
    ("def update(self, t, dt):", "update(t, dt)", "update(t)", "def update(self, t)"),
    ("def setup(self, scene):", "setup(scene)", "setup()", "def setup(self)"),
])
def test_a_setup_or_update_that_takes_other_arguments_is_told_at_its_def(tmp_path, capsys,
                                                                          defined, shown,
                                                                          call, want):
    """Was: Python's "takes 1 positional argument but 2 were given" from the first frame,
    the only scene mistake with no line of the scene's (exit 1)."""
    body = {"update": "    def update(self, t):\n        pass\n",
            "setup": "    def setup(self):\n        self.add(hf.Cube())\n"}
    which = "update" if "update" in defined else "setup"
    body[which] = f"    {defined}\n        pass\n"
    scene = tmp_path / "sig.py"
    scene.write_text("import hfrender as hf\n\nclass Sig(hf.Scene):\n    duration = 0.1\n"
                     + body["setup"] + body["update"])
    line = 5 if which == "setup" else 7
    out = tmp_path / "s.mp4"
    assert main(["render", str(scene), "-o", str(out), "--size", "32x18"]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: Sig.{shown} is called as {call}: "
                                       f"write {want} ({scene}:{line})\n")
    assert not out.exists()


def test_update_may_take_t_by_any_name_or_as_a_default(tmp_path):
    for defined in ("def update(self, time):", "def update(self, t=0.0):",
                    "def update(self, *args):"):
        scene = tmp_path / "ok.py"
        scene.write_text("import hfrender as hf\n\nclass Ok(hf.Scene):\n    duration = 0.1\n"
                         f"    {defined}\n        pass\n")
        assert main(["render", str(scene), "-o", str(tmp_path / "ok.mp4"), "--size", "32x18",
                     "--quiet"]) == 0


def test_an_update_that_is_not_a_method_is_one_line(tmp_path, capsys):
    """`update = None` in the class body: an internal error (a review)."""
    scene = tmp_path / "none.py"
    scene.write_text("import hfrender as hf\n\nclass NoUpdate(hf.Scene):\n    duration = 0.1\n"
                     "    update = None\n")
    assert main(["render", str(scene), "-o", str(tmp_path / "n.mp4"), "--size", "32x18"]) == 2
    assert capsys.readouterr().err == ("hfrender: error: NoUpdate.update is None, not a method: "
                                       "write def update(self, t)\n")


@pytest.mark.parametrize("name, body, kind", [
    ("update", "    def update(self, t):\n        self.b.position = (t, 0, 0)\n        yield\n",
     "a generator function (it has yield)"),
    ("update", "    async def update(self, t):\n        self.b.position = (t, 0, 0)\n",
     "a coroutine function (async def)")])
def test_an_update_with_yield_or_async_is_one_line(tmp_path, capsys, name, body, kind):
    """manim-slides' or asyncio's habit: update(t) with a yield returned a generator whose
    body never ran; the ball stayed at the origin at every t, exit 0, without a word."""
    scene = tmp_path / "gen.py"
    scene.write_text("import hfrender as hf\n\nclass Gen(hf.Scene):\n    def setup(self):\n"
                     "        self.b = self.add(hf.Sphere())\n" + body)
    assert main(["still", str(scene), "-t", "1", "-o", str(tmp_path / "g.png"),
                 "--size", "32x18"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: Gen.{name} is {kind} ({scene}:6): hfrender calls {name}(t) and "
        "uses nothing it returns, so its body would never run; write def update(self, t) "
        "that sets every object from t and returns nothing (manim's self.play and self.wait "
        "are update(t) from t alone)\n")
    assert not (tmp_path / "g.png").exists()


def test_a_setup_with_yield_and_a_partialmethod_update_are_one_line(tmp_path):
    """setup() with a yield is told as update's is; an update made by
    functools.partialmethod of a generator too (was an internal error: no __code__)."""
    from hfrender.scene.loader import SceneInputError, load_scene

    scene = tmp_path / "gen.py"
    scene.write_text("import functools\nimport hfrender as hf\n\n\ndef gen(self, t):\n"
                     "    yield t\n\n\nclass Gen(hf.Scene):\n    update = "
                     "functools.partialmethod(gen)\n")
    with pytest.raises(SceneInputError, match=r"^Gen\.update is a generator function \(it "
                                              r"has yield\): hfrender calls update\(t\)"):
        load_scene(str(scene))
    scene.write_text("import hfrender as hf\n\nclass Gen(hf.Scene):\n    def setup(self):\n"
                     "        yield\n")
    with pytest.raises(SceneInputError, match=rf"^Gen\.setup is a generator function \(it "
                                              rf"has yield\) \({re.escape(str(scene))}:4\): "
                                              r"hfrender calls setup\(\) and uses nothing"):
        load_scene(str(scene))


@pytest.mark.parametrize("line, code", [("X = undefined_name", 1),
                                        ("BALL = hf.Sphere(radius=-1)", 2)])
def test_a_scenes_top_level_code_raising_exits_as_in_setup(tmp_path, capsys, line, code):
    """A NameError at the module's top exited 2 (bad input) where the same in setup()
    exits 1 (the scene's own code raising); a value hfrender refuses stays 2."""
    scene = tmp_path / "top.py"
    scene.write_text(f"import hfrender as hf\n{line}\n\nclass Top(hf.Scene):\n    pass\n")
    assert main(["still", str(scene), "-o", str(tmp_path / "t.png"), "--size", "8x8"]) == code
    assert capsys.readouterr().err.startswith(f"hfrender: error: {scene}: importing the scene "
                                              "failed: ")


@pytest.mark.parametrize("body", [
    "def construct(self):\n    self.add(hf.Sphere())\n    self.wait(1)",
    "def setup(self):\n    pass\n\ndef construct(self):\n    self.add(hf.Sphere())",
    # update(t) failing on what construct() would make: still this line, not its error
    "def construct(self):\n    self.ball = self.add(hf.Sphere())\n\n"
    "def update(self, t):\n    self.ball.position = (t, 0, 0)",
    # update(t) making none either: still refused once it ran
    "def construct(self):\n    self.add(hf.Sphere())\n\ndef update(self, t):\n    pass",
])
def test_a_manim_scene_with_construct_alone_is_refused_in_one_line(tmp_path, capsys, body):
    """A scene with manim's construct() and no object added in setup() (a manim user's
    first try) was warned of once and rendered 0.2 s of background with exit 0; now
    refused before any frame, telling what hfrender wants instead and where it is told."""
    scene = write_scene(tmp_path, "class Manim(hf.Scene):\n    duration = 0.2\n\n    "
                        + body.replace("\n", "\n    ") + "\n")
    out = tmp_path / "m.mp4"
    assert main(["render", str(scene), "-o", str(out), "--size", "32x18", "--samples", "2",
                 "--quiet"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: {scene}: Manim has manim's construct(), which hfrender never calls, "
        "and its setup() added no object: the frames would show the background alone. "
        "hfrender draws what setup() adds, once (self.ball = self.add(hf.Sphere())), and "
        "update(t) sets it from t alone (self.ball.position = (t, 0, 0)): move construct()'s "
        "objects into setup() and its animations into update(t) (hfrender docs rendering "
        "scenes)\n")
    assert not out.exists()


def test_a_helper_named_construct_beside_objects_made_in_update_renders(tmp_path, capsys):
    """A scene making its objects in update(t) (afresh each call, self.objects[:] = ...:
    clip_motion.clip_rates pairs them by place) with a helper named
    construct() was refused as manim's construct() alone, its setup() having added none
    (a review); the check now looks once update(t) has run."""
    scene = write_scene(tmp_path, """
    class Made(hf.Scene):
        duration = 0.2
        background = (0.0, 0.0, 0.0)

        def construct(self, x):
            return hf.Cube(position=(x, 0, 0), color=(1.0, 0.0, 0.0))

        def update(self, t):
            self.objects[:] = [self.construct(0.0)]  # (add() is setup()'s)
    """)
    out = tmp_path / "m.png"
    assert main(["still", str(scene), "-o", str(out), "--size", "32x18", "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    picture = iio.imread(out)
    assert picture[9, 16, 0] > 100 and picture[9, 16, 1:].tolist() == [0, 0]  # the cube
    assert picture[0, 0].tolist() == [0, 0, 0]  # the background


def test_a_bug_in_update_beside_a_helper_named_construct_is_told_as_itself(tmp_path, capsys):
    """Such a scene whose update(t) has a bug of its own (an index past a list) was told
    "has manim's construct(), which hfrender never calls" (a review): the construct() line
    answers an update(t) reading what construct() would have made (an AttributeError), and
    this one's own error is said at its line."""
    scene = write_scene(tmp_path, """
    class Made(hf.Scene):
        duration = 0.2
        sizes = [1.0]

        def construct(self, x):
            return hf.Cube(position=(x, 0, 0), size=self.sizes[3])

        def update(self, t):
            self.objects[:] = [self.construct(t)]
    """)
    assert main(["still", str(scene), "-o", str(tmp_path / "m.png"), "--size", "32x18",
                 "--quiet"]) == 1
    err = capsys.readouterr().err
    line = next(k for k, text in enumerate(scene.read_text().splitlines(), 1)
                if "self.sizes[3]" in text)
    assert "IndexError: list index out of range" in err and f"{scene.name}:{line})" in err, err
    assert "construct()" not in err.split("IndexError")[0] and "never calls" not in err, err
    assert not (tmp_path / "m.png").exists()
