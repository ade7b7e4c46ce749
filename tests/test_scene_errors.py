"""A scene author's mistakes told at their own line, with the name meant: a misspelt keyword
of a scene object, a refused attribute of a class body, a name hfrender has not, a camera
that looks nowhere."""

import re
import time
from textwrap import dedent

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


def test_a_camera_that_looks_at_its_own_position_names_both_and_the_look_at_line(tmp_path,
                                                                                   capsys):
    """The camera starts at (0, 0, 5): looking at that point before moving it looks nowhere,
    found only when the frame is drawn; the message gives the values and the call's line."""
    from hfrender.cli import main

    scene = write_scene(tmp_path, """
    class Aim(hf.Scene):
        def setup(self):
            self.add(hf.Cube())
            self.camera.look_at((0, 0, 5))
    """)
    assert main(["render", str(scene), "-o", str(tmp_path / "a.mp4"), "--size", "32x18",
                 "--duration", "0.1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert re.search(r"camera: position \(0\.0, 0\.0, 5\.0\) and look_at target "
                     r"\(0\.0, 0\.0, 5\.0\) coincide: it looks nowhere \(set the position "
                     r"before looking at a point away from it; look_at was called at "
                     r"scene\.py:8\)$", err.strip()), err


@pytest.mark.parametrize("focal, focus, said", [
    ("", "0.03", r"camera.focus_distance=0.03 must be a distance in metres greater than the "
     r"focal length \(0.05 m, a 50 mm lens\), or inf \(\S*scene\.py:9\)$"),
    ("self.camera.focal_length_mm = 200", "0.15",  # the focus first, then a longer lens
     r"camera.focus_distance=0.15 must be a distance in metres greater than the focal length "
     r"\(0.2 m, a 200 mm lens\), or inf \(\S*scene\.py:9\)$"),
])
def test_a_focus_within_the_focal_length_names_the_line_that_set_it(tmp_path, capsys, focal,
                                                                    focus, said):
    """A distance > 0 within the focal length is refused only when the lens is made (before
    the first frame): the message names the camera's value and the scene's line."""
    scene = write_scene(tmp_path, f"""
    class Near(hf.Scene):
        def setup(self):
            self.add(hf.Cube())
            self.camera.f_stop = 2.8
            self.camera.focus_distance = {focus}
            {focal or "pass"}
    """)
    out = tmp_path / "n.mp4"
    assert main(["render", str(scene), "-o", str(out), "--size", "32x18", "--duration", "0.1",
                 "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    # the file named once, by its line (was: "{scene}: camera... ({scene}:9)")
    assert err.startswith("hfrender: error: camera.focus_distance=") and \
        re.search(said, err), err
    assert not out.exists()


def test_a_camera_made_with_a_bad_focus_names_the_line_that_made_it(tmp_path, capsys):
    """``hf.Camera(focus_distance=0.03, ...)``: its values are set by the dataclass's own
    ``__init__`` (a frame of no file), so the line told is the scene's that called it."""
    scene = write_scene(tmp_path, """
    class Near(hf.Scene):
        def setup(self):
            self.add(hf.Cube())
            self.camera = hf.Camera(f_stop=2.8,
                                    focus_distance=0.03)
    """)
    assert main(["render", str(scene), "-o", str(tmp_path / "n.mp4"), "--size", "32x18",
                 "--duration", "0.1", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert re.search(r"camera\.focus_distance=0\.03 must be a distance in metres greater "
                     r"than the focal length .* or inf \(\S*scene\.py:[89]\)$", err), err


def test_a_target_set_after_look_at_is_not_told_as_look_ats():
    cam = hf.Camera()
    cam.look_at((0, 0, 5))  # the default position: looks nowhere
    with pytest.raises(InputError, match=r"look_at was called at test_scene_errors\.py:\d+\)$"):
        cam.basis()
    cam.target = (0.0, 0.0, 5.0)
    with pytest.raises(InputError, match=r"away from it\)$"):
        cam.basis()


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


@pytest.mark.parametrize("update, said", [
    ("self.ball.position = (random.uniform(-1, 1), 0, 0)", "ball.position"),
    ("self.step += 1; self.camera.focus_distance = 2 + self.step", "camera.focus_distance"),
    ("self.ball.position = (math.sin(t), 0, 0)", None),  # pure: no word
    ("self.ball.color = (random.Random(round(t * 960)).random(), 0, 0)", None),  # seeded by t
    # set past a time and never set back: a still of a later frame saw it from t = 0 on
    # (with --dof auto a range had depth of field where the whole render had none, a trial)
    ("if t > 0.05: self.camera.focus_distance = 5.0", "camera.focus_distance"),
])
def test_an_update_that_is_not_a_pure_function_of_t_is_said(tmp_path, caplog, update, said):
    """A scene drawing random numbers, or keeping state, in update(t) gave different
    pictures from run to run and between a still and the video's frame, without a word."""
    scene = write_scene(tmp_path, f"""
    import random

    class Jitter(hf.Scene):
        duration = 0.2
        step = 0

        def setup(self):
            self.ball = self.add(hf.Sphere())
            self.camera.f_stop = 2.0

        def update(self, t):
            {update}
    """)
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-f", "3", "-o", str(tmp_path / "j.png"), "--size",
                     "32x18", "--samples", "2", "--quiet"]) == 0
    told = [r.getMessage() for r in caplog.records if "pure function" in r.getMessage()]
    if said is None:
        assert told == []
    else:
        assert len(told) == 1 and told[0].startswith(
            f"scene.py: update(t) is not a pure function of t: {said} at t=0 s was ")
        assert told[0].endswith("when t=0.1 s was drawn in between; sub-frames, stills "
                                "and --resume draw any t in any order, so their pictures will "
                                "not agree: set every property from t alone (seed random "
                                "numbers from t)")


SETUP_APART = ("setup() gives another scene each time it runs: {} was {}, and {} in a second "
               "setup(); each chunk of a render (a process of its own; on Ray, a machine's), "
               "a still and --resume run setup() afresh, so their frames will not agree (a "
               "jump where chunks meet): seed the random numbers drawn there "
               "(random.Random(1), np.random.default_rng(1))")


@pytest.mark.parametrize("top, setup, update, said", [
    # drawn unseeded in setup(), used by update(t): every chunk's balls stood elsewhere
    ("", "self.offsets = [random.random() for _ in range(3)]",
     "self.ball.position = (self.offsets[0] + t, 0, 0)", "self.offsets"),
    ("", "self.ball.position = tuple(np.random.default_rng().random(3))", "pass",
     "ball.position"),  # (no value of the scene's own: what is drawn)
    ("", "self.rng = random.Random(1); self.offsets = [self.rng.random()]",  # seeded: no word
     "self.ball.position = (self.offsets[0] + t, 0, 0)", None),
    ("RNG = np.random.default_rng(1)\nrandom.seed(2)",  # seeded as the module is imported
     "self.offsets = RNG.random(3); self.x = random.random()",  # (as every process does)
     "self.ball.position = (self.offsets[0] + self.x, 0, 0)", None),
    ("", "self.unused = random.random()", "pass", None),  # not drawn: no word
    ("", "self.offsets = [random.random()]",  # update's own randomness: said once, of update
     "self.ball.position = (random.random(), 0, 0)", None),
])
def test_random_numbers_drawn_unseeded_in_setup_are_said(tmp_path, caplog, capsys, top, setup,
                                                         update, said):
    """Each chunk of a render, a still and --resume run setup() afresh: random numbers it
    drew unseeded gave each chunk another scene (a jump where chunks meet), without a word.
    The scene is now set up a second time, its prints kept quiet, and compared."""
    scene = write_scene(tmp_path, "import random\nimport numpy as np\n" + top + dedent(f"""

    class Scatter(hf.Scene):
        duration = 0.2

        def setup(self):
            print("setting up")
            self.ball = self.add(hf.Sphere(radius=0.2))
            {setup}

        def update(self, t):
            {update}
    """))
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "s.png"), "--size", "32x18",
                     "--samples", "1", "--quiet"]) == 0
    assert capsys.readouterr().out == "setting up\n"  # (once: the second set-up is quiet)
    told = [r.getMessage() for r in caplog.records if "setup() gives" in r.getMessage()]
    if said is None:
        assert told == []
    else:
        assert len(told) == 1, told
        assert re.fullmatch(re.escape(f"scene.py: {SETUP_APART}").replace(
            re.escape("{}"), "(.+)"), told[0]).groups()[0] == said, told[0]


def test_a_slow_setup_is_not_set_up_again_but_reading_a_model_is_not_slow(tmp_path, caplog,
                                                                          monkeypatch):
    """The second setup() costs a start as long as the first's: past SLOW_SETUP_S it is
    left out; the time reading model files does not count (read once a process, the second
    setup() finds them read)."""
    import trimesh

    from hfrender.scene import meshes, ready

    trimesh.creation.box().export(tmp_path / "box.glb")
    read = meshes.read_model

    def slow_read(*args):
        time.sleep(0.3)
        return read(*args)

    monkeypatch.setattr(meshes, "read_model", slow_read)
    monkeypatch.setattr(ready, "SLOW_SETUP_S", 0.25)
    told = {}
    for slow in ("time.sleep(0.3)", "self.add(hf.Mesh.load('box.glb'))"):
        scene = write_scene(tmp_path, f"""
        import random
        import time

        class Scatter(hf.Scene):
            duration = 0.2

            def setup(self):
                {slow}
                self.ball = self.add(hf.Sphere(position=(random.random(), 0, 0)))
        """, name=f"scene{len(told)}.py")
        caplog.clear()
        with caplog.at_level("WARNING"):
            assert main(["still", str(scene), "-o", str(tmp_path / "s.png"), "--size",
                         "32x18", "--samples", "1", "--quiet"]) == 0
        told[slow[:4]] = [r.getMessage().split(" was ")[0] for r in caplog.records
                          if "setup() gives" in r.getMessage()]
    assert told == {"time": [], "self": ["scene1.py: " + SETUP_APART.split(" was ")[0].format(
        "ball.position")]}


def test_an_f_stop_set_in_update_gives_depth_of_field(tmp_path, capsys):
    """--dof auto looked at the camera after setup() alone: an f_stop set in update(t)
    turned depth of field off without a word ("dof off")."""
    scene = write_scene(tmp_path, """
    class Late(hf.Scene):
        duration = 0.2

        def setup(self):
            self.add(hf.Sphere())
            self.camera.focus_distance = 5.0

        def update(self, t):
            self.camera.f_stop = 2.0
    """)
    assert main(["still", str(scene), "-o", str(tmp_path / "l.png"), "--size", "32x18",
                 "--samples", "2"]) == 0
    assert capsys.readouterr().out == (
        f"wrote {tmp_path / 'l.png'}: frame 0 (t=0.000 s), 2 samples over 180 degrees, dof lens\n")


@pytest.mark.parametrize("t, said", [
    ("t", "; t is before 0: the first frame's shutter opens before t = 0 (clamp t in update, "
          "t = max(0, min(t, duration)), or give --shutter-position start)"),
    ("0.2 - t", "; t is past the duration (0.2 s): the last frame's shutter closes after it "
                "(clamp t in update, t = max(0, min(t, duration)), or give "
                "--shutter-position end); the 5 frames finished so far are in "),
    ("t - 0.05", ""),  # inside the duration: no word of it
])
def test_an_error_at_a_t_outside_the_duration_says_why_that_t(tmp_path, capsys, t, said):
    """math.sqrt(t) failed at t=-0.00416667 for a still asked at t=0, with nothing said of
    why update saw that t."""
    scene = write_scene(tmp_path, f"""
    class Root(hf.Scene):
        duration = 0.2

        def setup(self):
            self.ball = self.add(hf.Sphere())

        def update(self, t):
            self.ball.position = (math.sqrt({t}), 0, 0)
    """)
    assert main(["render", str(scene), "-o", str(tmp_path / "r.mp4"), "--size", "32x18",
                 "--samples", "8", "--shutter", "1080", "--quiet"]) == 1  # +-1.5 frames
    err = capsys.readouterr().err
    assert err.startswith("hfrender: error: scene error in update(t) at t=")
    assert f"ValueError: math domain error ({scene}:12){said}" in err, err
    assert said or err.endswith(f"({scene}:12)\n")


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


@pytest.mark.parametrize("points, said", [
    ("BASE * (1 + 0.5 * math.sin(t))", None),  # a fresh array each update, from t: pure
    ("BASE * random.random()", "cloud.points")])
def test_a_large_array_set_from_t_is_pure_and_one_drawn_at_random_is_not(tmp_path, caplog,
                                                                         points, said):
    """An object's large array (5000 points) computed afresh by update(t) was compared by
    its id: a pure scene was told impure, with "('array', 140318374927824, ...)"."""
    scene = write_scene(tmp_path, f"""
    import random
    from dataclasses import dataclass, field

    import numpy as np

    BASE = np.linspace(0, 1, 15000).reshape(5000, 3)

    @dataclass
    class Cloud(hf.Sphere):
        points: np.ndarray = field(default_factory=lambda: BASE)

    class Points(hf.Scene):
        duration = 0.2

        def setup(self):
            self.cloud = self.add(Cloud())

        def update(self, t):
            self.cloud.points = {points}
    """)
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "p.png"), "--size", "32x18",
                     "--samples", "1", "--quiet"]) == 0
    told = [r.getMessage() for r in caplog.records if "pure function" in r.getMessage()]
    if said is None:
        assert told == []
    else:
        assert len(told) == 1 and f": {said} at t=0 s was an array (5000, 3) of digest " in \
            told[0] and "id" not in told[0].split("digest")[0], told


def test_an_error_at_the_neighbouring_time_of_the_first_look_names_its_frame(tmp_path,
                                                                             capsys):
    """The first look's update at the next frame's time failed as "output frame 0". It
    no longer fails a still of frame 0, which draws no such time (a later trial: the video
    renders that frame); a render of frame 1 fails there, naming it."""
    scene = write_scene(tmp_path, """
    class Late(hf.Scene):
        duration = 0.2

        def update(self, t):
            if t > 0.02:
                raise RuntimeError("late")
    """)
    assert main(["still", str(scene), "-o", str(tmp_path / "l.png"), "--size", "32x18"]) == 0
    capsys.readouterr()
    assert main(["render", str(scene), "-o", str(tmp_path / "l/%02d.png"), "--size", "32x18",
                 "--frames", "0:2"]) == 1
    assert "scene error in update(t) at t=0.0" in capsys.readouterr().err


def test_duration_given_is_the_scenes_own_and_its_hints(tmp_path, capsys):
    """--duration 0.4 over a class's 0.2: the scene's own ``self.duration`` stayed 0.2, and
    an error at t = 0.3 was said to be past the duration with a clamp to 0.2 (a trial)."""
    scene = write_scene(tmp_path, """
    class Long(hf.Scene):
        duration = 0.2

        def setup(self):
            self.ball = self.add(hf.Sphere())
            print("setup sees", self.duration)

        def update(self, t):
            if t > 0.3:
                raise RuntimeError(f"t={t:.3f} of {self.duration}")
    """)
    assert main(["render", str(scene), "-o", str(tmp_path / "r.mp4"), "--size", "32x18",
                 "--samples", "2", "--duration", "0.4", "--quiet"]) == 1
    out, err = capsys.readouterr()
    assert "setup sees 0.4\n" in out
    assert "RuntimeError: t=0.30" in err and " of 0.4 (" in err, err
    assert "past the duration" not in err
    assert main(["render", str(scene), "-o", str(tmp_path / "s.mp4"), "--size", "32x18",
                 "--samples", "8", "--duration", "0.3", "--shutter", "1080", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "; t is past the duration (0.3 s): the last frame's shutter closes after it" in err


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


def test_an_update_that_is_not_a_method_is_one_line(tmp_path, capsys):
    """`update = None` in the class body: an internal error (a review)."""
    scene = tmp_path / "none.py"
    scene.write_text("import hfrender as hf\n\nclass NoUpdate(hf.Scene):\n    duration = 0.1\n"
                     "    update = None\n")
    assert main(["render", str(scene), "-o", str(tmp_path / "n.mp4"), "--size", "32x18"]) == 2
    assert capsys.readouterr().err == ("hfrender: error: NoUpdate.update is None, not a method: "
                                       "write def update(self, t)\n")


@pytest.mark.parametrize("args", [["still", "-f", "29"], ["render", "--frames", "29:"]])
def test_a_frame_the_video_renders_renders_alone(tmp_path, capsys, args):
    """update(t) refusing t >= 1 (the duration): the video rendered every frame, but a
    still of frame 29, or --frames 29:, failed in the pure-function check's look at the
    next frame's time, t = 1 s, which no frame draws (a trial)."""
    scene = tmp_path / "upto.py"
    scene.write_text("import hfrender as hf\n\nclass UpTo(hf.Scene):\n    duration = 1.0\n\n"
                     "    def setup(self):\n        self.ball = self.add(hf.Sphere())\n\n"
                     "    def update(self, t):\n        assert 0 <= t < 1.0, t\n"
                     "        self.ball.position = (t, 0, 0)\n")
    out = tmp_path / ("s.png" if args[0] == "still" else "r/%02d.png")
    assert main([args[0], str(scene), *args[1:], "-o", str(out), "--size", "32x18",
                 "--samples", "2", "--shutter-position", "start", "--quiet"]) == 0


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


def test_an_impure_update_is_told_where_the_next_frames_time_fails(tmp_path, caplog):
    """The pure-function check skipped its look where update(t) failed at the next
    frame's time, hiding an impure scene (a review): it now looks at the frame before."""
    scene = tmp_path / "impure.py"
    scene.write_text("import hfrender as hf\n\nclass Impure(hf.Scene):\n    duration = 1.0\n\n"
                     "    def setup(self):\n        self.n = 0\n"
                     "        self.ball = self.add(hf.Sphere())\n\n"
                     "    def update(self, t):\n        if t >= 0.5:\n"
                     "            raise RuntimeError('late')\n        self.n += 1\n"
                     "        self.ball.position = (self.n * 0.01, 0, 0)\n")
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-f", "14", "-o", str(tmp_path / "s.png"),
                     "--size", "32x18", "--samples", "1", "--shutter-position", "start",
                     "--quiet"]) == 0
    assert any("update(t) is not a pure function of t" in r.getMessage()
               for r in caplog.records)


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


def test_a_camera_range_upside_down_names_the_line_that_made_it(tmp_path, capsys):
    """``near = 10; far = 1`` was told without a line, as ``10.0`` where 10 was written."""
    scene = write_scene(tmp_path, """
    class Range(hf.Scene):
        def setup(self):
            self.add(hf.Cube())
            self.camera.near = 10
            self.camera.far = 1
    """)
    assert main(["still", str(scene), "-o", str(tmp_path / "r.png"), "--size", "32x18"]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: camera.near=10 must be less than camera.far=1: what is drawn lies "
        f"between them ({scene}:9)\n")
    assert not (tmp_path / "r.png").exists()


def test_a_focus_set_late_and_never_set_back_is_said_by_a_range_and_the_whole(tmp_path,
                                                                              caplog):
    """An f-stop set only past t = 1 (never set back): the whole render had no depth of
    field and a range of later frames had it, 59 codes apart, without a word (a trial).
    Both now say the update is not a pure function of t, and their frames agree."""
    scene = write_scene(tmp_path, """
    class LateFocus(hf.Scene):
        duration = 2.0

        def setup(self):
            self.add(hf.Sphere(radius=0.3, position=(-0.5, 0, 2)))
            self.add(hf.Cube(position=(0.5, 0, -4)))
            self.camera.position = (0, 0, 5)

        def update(self, t):
            if t > 1.0:
                self.camera.f_stop = 1.4
                self.camera.focus_distance = 3.0
    """)
    told = {}
    for name, extra in (("whole", []), ("range", ["--frames", "6:8"])):
        caplog.clear()
        with caplog.at_level("WARNING"):
            assert main(["render", str(scene), "-o", str(tmp_path / name / "%02d.png"),
                         "--size", "64x36", "--fps", "4", "--samples", "4", "--quiet",
                         *extra]) == 0
        told[name] = [r.getMessage() for r in caplog.records if "pure function" in
                      r.getMessage()]
    assert [len(t) for t in told.values()] == [1, 1]
    assert told["range"][0].startswith("scene.py: update(t) is not a pure function of t: "
                                       "camera.f_stop at t=0 s was None, and 1.4 when "
                                       "t=1.5 s was drawn in between;")
    assert told["whole"][0].startswith("scene.py: update(t) is not a pure function of t: "
                                       "camera.f_stop at t=0 s was None, and 1.4 when "
                                       "t=1.75 s was drawn in between;")  # its last frame


def test_the_look_at_the_far_end_leaves_the_scene_drawn_as_it_was(tmp_path, caplog):
    """The far look ran update(end) on the scene drawn: a colour set past t = 0.8 and never
    set back was then every frame's, frame 0 too (a review); it looks at a copy now."""
    import imageio.v3 as iio

    scene = write_scene(tmp_path, """
    class Late(hf.Scene):
        duration = 1.0
        background = (0, 0, 0)
        ambient = 1.0

        def setup(self):
            self.card = self.add(hf.Plane(scale=8, color=(0.5, 0.5, 0.5)))
            self.camera.position = (0, 0, 3)

        def update(self, t):
            if t > 0.8:
                self.card.color = (1.0, 0.0, 0.0)
    """)
    with caplog.at_level("WARNING"):
        assert main(["render", str(scene), "-o", str(tmp_path / "f" / "%02d.png"), "--size",
                     "16x8", "--fps", "10", "--samples", "1", "--quiet"]) == 0
    assert any("card.color at t=0 s was (0.5, 0.5, 0.5), and (1.0, 0.0, 0.0) when t=0.9 s"
               in r.getMessage() for r in caplog.records)
    first, last = (iio.imread(tmp_path / "f" / f"{k:02d}.png")[4, 8] for k in (0, 9))
    assert first.tolist() == [128, 128, 128] and last.tolist() == [255, 0, 0]  # display
    # colours as given (ambient 1): 0.5 is code 128; frame 0 as the author meant it
