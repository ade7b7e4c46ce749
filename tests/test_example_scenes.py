"""Every example scene in scenes/ renders, the new ones show what their pictures in
docs/rendering.md show, and scenes/assets/make_assets.py makes the committed models."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from render_helpers import render_frames

import hfrender as hf

pytest.importorskip("trimesh", reason="the models extra: pip install -e '.[dev]'")
SCENES = Path(__file__).resolve().parents[1] / "scenes"
FILES = sorted(p.name for p in (*SCENES.glob("*.py"), *SCENES.glob("*.frag")))
SMALL = dict(size=(64, 40), samples=2, backend="cpu", reconstruct="off")


def test_the_new_examples_are_among_them():
    assert {"windmill.py", "windmill_sign.py", "glow.frag", "glow_bufA.frag",
            "skinned_arm.py", "shadows.py", "soft_shadows.py", "lamps.py"} <= set(FILES)
    listed = (SCENES / "README.md").read_text()
    assert all(f"`{name}`" in listed for name in FILES)


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("name", FILES)
def test_every_example_scene_renders_a_frame(name):
    frames, stats = render_frames(SCENES / name, first_frame=3, count=1, **SMALL)
    assert frames.shape[:3] == (1, 40, 64) and stats.subframes == 2  # (RGBA: transparent)
    assert frames[..., :3].std() > 3  # a picture, not one flat colour


def loaded(name):
    from hfrender.scene.loader import load_scene

    scene = load_scene(SCENES / name)
    scene.setup()
    return scene


def test_the_windmill_plays_its_files_animation_and_loops_it():
    scene = loaded("windmill.py")
    assert (scene.mill.animations, scene.mill.duration) == (("Turn",), 2.0)
    scene.update(2.5)
    assert scene.mill.time == pytest.approx(0.5)


@pytest.mark.usefixtures("gl_context")
def test_the_windmills_sails_turn_and_blur():
    """An eighth of a turn (1/16 s) later the sails are elsewhere; with a shutter the
    frame differs from the instant one only where the sails sweep (the tower still)."""
    still = dict(SMALL, size=(120, 100), samples=1)
    a, _ = render_frames(SCENES / "windmill.py", first_frame=0, count=1, fps=16, **still)
    b, _ = render_frames(SCENES / "windmill.py", first_frame=1, count=1, fps=16, **still)
    moved = np.abs(a[0].astype(int) - b[0]).max(-1) > 40
    assert moved[:50].sum() > 150  # the sails, in the upper half
    assert moved[70:, :40].sum() == 0  # the tower's foot, left of the sign
    blurred, _ = render_frames(SCENES / "windmill.py", first_frame=0, count=1, fps=16,
                               **dict(still, samples=8))
    smear = np.abs(blurred[0].astype(int) - a[0]).max(-1) > 20
    assert smear[:50].sum() > 100 and smear[70:, :40].sum() == 0


@pytest.mark.usefixtures("gl_context")
def test_the_lamps_scenes_spot_casts_the_balls_shadow(tmp_path):
    """scenes/lamps.py's spot with its shadows and with them off: with them the floor in
    its light is darker behind the ball (away from the lamp, up the picture) and nothing
    is lighter."""
    text = (SCENES / "lamps.py").read_text()
    assert text.count("shadows=True") == 2  # (the docstring's and the spot's)
    (tmp_path / "off.py").write_text(text.replace("shadows=True, intensity", "intensity"))
    settings = dict(SMALL, size=(160, 90), samples=4, hdr="auto")
    on, _ = render_frames(SCENES / "lamps.py", first_frame=36, count=1, **settings)
    off, _ = render_frames(tmp_path / "off.py", first_frame=36, count=1, **settings)
    darker = off[0].astype(int) - on[0]
    assert darker.min() >= -1 and (darker.max(-1) > 20).sum() > 300


@pytest.mark.usefixtures("gl_context")
def test_the_shadows_scene_casts_shadows(tmp_path):
    """scenes/shadows.py with its shadows as they are and turned off: with them the floor
    is darker under and beside each shape, and nothing is lighter."""
    text = (SCENES / "shadows.py").read_text()
    (tmp_path / "off.py").write_text(text.replace("shadows = True", "shadows = False"))
    settings = dict(SMALL, size=(160, 90), samples=8)
    on, _ = render_frames(SCENES / "shadows.py", first_frame=9, count=1, **settings)
    off, _ = render_frames(tmp_path / "off.py", first_frame=9, count=1, **settings)
    darker = off[0].astype(int) - on[0]
    assert darker.min() >= -1 and (darker.max(-1) > 30).sum() > 600


@pytest.mark.usefixtures("gl_context")
def test_the_soft_shadows_scene_softens_its_shadows(tmp_path):
    """scenes/soft_shadows.py and the same with light_angle = 0: its shadows spread both
    ways from the hard ones' edges, lighter just inside them and darker just outside."""
    text = (SCENES / "soft_shadows.py").read_text()
    assert text.count("    light_angle = 12\n") == 1
    (tmp_path / "hard.py").write_text(text.replace("    light_angle = 12\n",
                                                   "    light_angle = 0\n"))
    settings = dict(SMALL, size=(160, 90), samples=16)
    soft, _ = render_frames(SCENES / "soft_shadows.py", first_frame=0, count=1, **settings)
    hard, _ = render_frames(tmp_path / "hard.py", first_frame=0, count=1, **settings)
    lighter = soft[0].astype(int) - hard[0]
    assert (lighter.max(-1) > 20).sum() > 45 and (lighter.min(-1) < -20).sum() > 10


@pytest.mark.usefixtures("gl_context")
def test_the_lamps_scene_is_lit_by_its_lamps(tmp_path):
    """scenes/lamps.py with its lamps and with them off (intensity 0): with them the
    picture is lighter where they shine (the firefly warm, red over blue; the spot cool,
    blue over red) and darker nowhere; --hdr auto turns on for the light past white."""
    text = (SCENES / "lamps.py").read_text()
    off = text.replace("intensity=0.9", "intensity=0").replace("intensity=14", "intensity=0")
    assert off.count("intensity=0,") == 1 and off.count("intensity=0)") == 1
    (tmp_path / "off.py").write_text(off)
    settings = dict(SMALL, size=(160, 90), samples=4, hdr="auto")
    on, stats = render_frames(SCENES / "lamps.py", first_frame=36, count=1, **settings)
    dark, _ = render_frames(tmp_path / "off.py", first_frame=36, count=1, **settings)
    lighter = on[0].astype(int) - dark[0]
    assert lighter.min() >= -1 and (lighter.max(-1) > 30).sum() > 1000
    warm = lighter[..., 0] - lighter[..., 2] > 20
    cool = lighter[..., 2] - lighter[..., 0] > 20
    assert warm.sum() > 200 and cool.sum() > 200
    assert stats.hdr and "its lamps' light" in stats.hdr_why


@pytest.mark.usefixtures("gl_context")
def test_the_arm_bends_swells_and_blurs():
    """Its skin and morph target are played (not its rest pose at every time): a quarter
    second later the arm is elsewhere, the pillar it rises from still; with a shutter the
    frame differs from the instant one where the arm sweeps."""
    scene = loaded("skinned_arm.py")
    (part,) = scene.arm._loaded().parts
    assert part.skin is not None and part.morph is not None
    assert (scene.arm.animations, scene.arm.duration) == (("Wave",), 2.0)
    still = dict(SMALL, size=(120, 80), samples=1)
    a, _ = render_frames(SCENES / "skinned_arm.py", first_frame=0, count=1, fps=4, **still)
    b, _ = render_frames(SCENES / "skinned_arm.py", first_frame=1, count=1, fps=4, **still)
    moved = np.abs(a[0].astype(int) - b[0]).max(-1) > 40
    assert moved.sum() > 100 and moved[55:].sum() == 0  # the arm, above the floor
    blurred, _ = render_frames(SCENES / "skinned_arm.py", first_frame=1, count=1, fps=4,
                               **dict(still, samples=8))
    assert (np.abs(blurred[0].astype(int) - b[0]).max(-1) > 20).sum() > 50


@pytest.mark.usefixtures("gl_context")
def test_the_signs_emissive_texture_is_bright_and_turns_hdr_on():
    frames, stats = render_frames(SCENES / "windmill_sign.py", first_frame=3, count=1,
                                  **dict(SMALL, size=(120, 100), dof="off"))
    assert stats.hdr and stats.hdr_why == ("self.mill (a Mesh) with its materials' emission "
                                           "(up to 4x white) reaches 4.13x white")
    bulbs = (frames[0, ..., 0] == 255) & (frames[0, ..., 1] > 200)  # warm, past white
    cyan = (frames[0, ..., 2] > 200) & (frames[0, ..., 0] < 150)  # the cross
    assert bulbs.sum() > 40 and cyan.sum() > 10


@pytest.mark.usefixtures("gl_context")
def test_the_glow_reads_its_buffer():
    """The Image tab draws Buffer A's dot (where the buffer alone is) and glows round it."""
    kw = dict(SMALL, size=(96, 60), samples=1)
    image, _ = render_frames(SCENES / "glow.frag", first_frame=30, count=1, **kw)
    buffer, _ = render_frames(SCENES / "glow_bufA.frag", first_frame=30, count=1, **kw)
    dot = buffer[0, ..., 0] == 255
    assert 10 < dot.sum() < 60 and image[0, ..., 0][dot].mean() > 190  # its tone curve: 4 -> 0.8
    ys, xs = np.nonzero(dot)
    halo = image[0, ys.min() - 6, int(xs.mean())].astype(int)  # 6 px above the dot
    bare = buffer[0, ys.min() - 6, int(xs.mean())].astype(int)
    assert halo[0] > bare[0] + 30, (halo, bare)


def drawn(path):
    """What hfrender draws of a model: each part's vertices, triangles, textures (decoded:
    PNG compression apart), shading and light, its animations and where they put each part
    at a few times; not how trimesh lays the file out, which its versions do differently
    (4.6 to 4.12 add a root node 'world': every node's number one more)."""
    mesh = hf.Mesh.load(path)
    parts = [(p.vertices.tobytes(), p.indices.tobytes(), p.smooth, p.double_sided,
              p.emission, *(None if x is None else x.tobytes()
                            for x in (p.texture, p.emission_texture)))
             for p in mesh._loaded().parts]
    poses = []
    for t in (0.0, 0.3, 1.1, 1.9) if mesh.animations else ():
        mesh.time = t
        poses.append(np.round(mesh.part_matrices(), 12).tolist())
    return parts, mesh.animations, mesh.duration, mesh.triangles, poses


@pytest.mark.parametrize("name", ["toy.glb", "windmill.glb", "arm.glb"])
def test_make_assets_makes_the_committed_models(tmp_path, name):
    spec = importlib.util.spec_from_file_location("make_assets",
                                                  SCENES / "assets" / "make_assets.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    getattr(module, name.removesuffix(".glb"))(tmp_path / name)
    assert drawn(tmp_path / name) == drawn(SCENES / "assets" / name)


@pytest.mark.parametrize("name", ["toy.glb", "windmill.glb", "arm.glb"])
def test_the_committed_models_wind_their_faces_outward(name):
    """glTF's front face is counter-clockwise and its back faces are culled: a triangle
    wound the other way from its normals is drawn from inside (windmill.glb's tower, roof,
    hub, axle and posts, 544 + 80 + 64 triangles, were: hfrender's round shapes copied as
    they wind, clockwise; the tower showed its far wall, the hub hid behind the sails)."""
    import trimesh

    found = {}
    for part, shape in trimesh.load(SCENES / "assets" / name, process=False).geometry.items():
        v, f = shape.vertices, shape.faces
        ahead = np.einsum("ij,ij->i", np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]]),
                          shape.vertex_normals[f].sum(1))
        found[part] = int((ahead < -1e-12).sum())
    assert found == dict.fromkeys(found, 0)


def test_each_test_that_renders_checks_the_gl_errors():
    """A test here that renders (render_frames) asks for the gl_context fixture, whose
    teardown checks the GL error flags of the contexts the render made and released (was:
    the sign's test lost its mark to the arm's, which had it twice)."""
    unchecked = [name for name, test in sorted(globals().items())
                 if name.startswith("test_") and "render_frames" in test.__code__.co_names
                 and not any(m.name == "usefixtures" and "gl_context" in m.args
                             for m in getattr(test, "pytestmark", ()))]
    assert unchecked == []
