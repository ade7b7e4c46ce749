"""Skinned and morphed parts posed in the vertex shader (hfrender/renderer/skinning.py,
shaders/glsl/mesh.vert's hf_pose): the colour, depth and velocity planes and the shadow
maps (the sun's and a spot's) equal those of the NumPy-posed reference
(hfrender/scene/model_skins.py's posed, ``ModelDrawer.shader_posing`` False) in each case
the CPU tests cover, opaque and translucent, and NumPy poses nothing."""

import numpy as np
import pytest
from gltf_files import add_floats

import hfrender as hf
from hfrender.renderer import models
from hfrender.renderer.clip_motion import clip_rates
from hfrender.renderer.renderer import SceneRenderer

trimesh = pytest.importorskip("trimesh", reason="the models extra: pip install -e '.[dev]'")
from mesh_helpers import make_scene  # noqa: E402
from test_model_animation import CAMERA, H, W  # noqa: E402
from test_model_morphs import write_quad  # noqa: E402
from test_model_skin_checks import eight  # noqa: E402
from test_model_skin_poses import write_slant  # noqa: E402
from test_model_skins import write_bar  # noqa: E402


def single(header):
    header["materials"][0]["doubleSided"] = False


def mirrored_joint(header):
    single(header)
    header["nodes"][0].update(translation=[1.0, 0.0, 0.0], scale=[-1.0, 1.0, 1.0])


def mirrored_node(header):
    single(header)
    header["nodes"][2]["scale"] = [-1.0, 1.0, 1.0]


def swelling(header):
    """The bar's tip pushed 0.5 m along x by a target whose weight rises 0 -> 1 in 1 s
    (an animated weight: the velocity has the targets' sweep)."""
    push = [[0.0] * 3] * 4 + [[0.5, 0, 0]] * 2
    header["meshes"][0]["primitives"][0]["targets"] = [
        {"POSITION": add_floats(header, push, "VEC3")}]
    header["meshes"][0]["weights"] = [0.0]
    anim = header["animations"][0]
    anim["samplers"].append({"input": anim["samplers"][0]["input"],
                             "output": add_floats(header, [0.0, 1.0], "SCALAR")})
    anim["channels"].append({"sampler": 1, "target": {"node": 2, "path": "weights"}})


CASES = {  # name: (file written in a folder, time[, opacity])
    "bar at 0.25": (lambda d: write_bar(d), 0.25),
    "bar at 0.5": (lambda d: write_bar(d), 0.5),
    "bar at 1": (lambda d: write_bar(d), 1.0),
    "8 influences": (lambda d: write_bar(d, "eight", eight), 0.5),
    "mirrored joint": (lambda d: write_bar(d, "mj", mirrored_joint), 0.5),
    "mirrored node": (lambda d: write_bar(d, "mn", mirrored_node), 0.5),
    "weights all 0": (lambda d: write_bar(d, "unweighed", tip=(0, 0, 0, 0)), 0.5),
    "skin and morph": (lambda d: write_bar(d, "swelling", swelling), 0.5),
    "morph alone": (lambda d: write_quad(d), 0.5),
    "scaled 2, 1, 1": (lambda d: write_slant(d), 0.5),
    "translucent": (lambda d: write_bar(d, "swelling", swelling), 0.5, 0.5),
}


def planes(gl_context, path, t, shader, opacity=1.0, h=1e-3):
    """The mesh of ``path`` at ``t`` (of ``opacity``), shadows on, lit (its normals show)
    by the sun and a spot casting shadows, posed in the shader or by NumPy: colour, depth,
    velocity and the two shadow maps (side by side), as a sub-frame draws them."""
    mesh = hf.Mesh.load(path)
    mesh.opacity = opacity
    spot = hf.SpotLight(position=(0.5, 3.0, 0.5), target=(0.0, 0.0, 0.0), angle=90,
                        shadows=True)
    scene = make_scene(mesh, spot, **CAMERA)
    scene.shadows, scene.ambient = True, 0.3
    scene.setup()
    renderer = SceneRenderer(gl_context().ctx, scene, (W, H), True, with_velocity=True)
    renderer.models.shader_posing = shader
    renderer.prepare()
    clips = []
    for when in (t - h, t + h, t):
        mesh.time = when
        clips.append(renderer.clip_matrices())
    renderer.draw(t, 0, clip_rates=clip_rates(clips[0], clips[1], 2 * h))
    color, depth = np.empty((H, W, 4), np.uint8), np.empty((H, W), np.float32)
    vel = np.empty((H, W, 2), np.float32)
    renderer.read_into(color, depth, vel)
    assert len(renderer.shadows.spots) == (opacity == 1.0)  # (translucent: casts none)
    shadow = np.concatenate([np.frombuffer(m.map.read(), np.float32) for m in (
        renderer.shadows, *renderer.shadows.spots)])
    renderer.release()
    return color[..., :3], depth, vel, shadow


@pytest.mark.parametrize("case", list(CASES))
def test_the_shader_pose_draws_the_numpy_pose(gl_context, tmp_path, monkeypatch, case):
    calls, real = [], models.posed
    monkeypatch.setattr(models, "posed", lambda *a, **k: calls.append(1) or real(*a, **k))
    write, t, *opacity = CASES[case]
    path = write(tmp_path)
    want = planes(gl_context, path, t, False, *opacity)
    assert calls, "the reference is NumPy's"
    calls.clear()
    got = planes(gl_context, path, t, True, *opacity)
    assert not calls  # (was: posed in NumPy at every draw)
    (color, depth, vel, shadow), (color0, depth0, vel0, shadow0) = got, want
    assert (color0.max(-1) > 0).sum() > 1000  # (drawn, on black)
    opaque = case != "translucent"  # (a translucent object: its colour alone, no shadow)
    assert abs(vel0).max() > 15 or not opaque or case == "scaled 2, 1, 1"  # (px/s; the
    # slant is held at its scale)
    assert (shadow0 < 1).sum() > 10000 or not opaque  # (it casts)
    np.testing.assert_array_equal(color, color0)  # (measured: every pixel alike)
    np.testing.assert_allclose(depth, depth0, rtol=0, atol=1e-5)  # (at most 1e-6 m)
    np.testing.assert_allclose(vel, vel0, rtol=0, atol=1e-3)  # (at most 5e-5 px/s of 113)
    np.testing.assert_allclose(shadow, shadow0, rtol=0, atol=1e-5)  # (at most 4e-7)


def test_a_part_of_more_targets_than_the_shader_takes_is_posed_by_numpy(
        gl_context, tmp_path, monkeypatch):
    """The shader reads MAX_TARGETS weights (u_target_weights: 4 a vec4); a part of more
    (here: MAX_TARGETS lowered to 0 for the quad's 1) is posed by NumPy, pixel for pixel
    as before, as is every part where ``shader_posing`` is False."""
    from hfrender.renderer import skinning

    glctx = gl_context()
    drawer = models.ModelDrawer(glctx.ctx, None)
    prog = drawer.program(None)
    assert prog["u_target_weights"].array_length * 4 == skinning.MAX_TARGETS == 128
    drawer.release()
    path = write_quad(tmp_path)
    want = planes(gl_context, path, 0.5, shader=False)
    calls, real = [], models.posed
    monkeypatch.setattr(models, "posed", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(skinning, "MAX_TARGETS", 0)
    got = planes(gl_context, path, 0.5, shader=True)
    assert calls  # (posed by NumPy)
    for plane, plane0 in zip(got, want, strict=True):
        np.testing.assert_array_equal(plane, plane0)


def said_posed_in_numpy(caplog):
    return [r.getMessage() for r in caplog.records
            if r.levelname == "WARNING" and "posed in NumPy" in r.getMessage()]


def test_a_part_past_the_shaders_limits_is_said_once_naming_the_model_and_the_limit(
        gl_context, tmp_path, caplog, monkeypatch):
    """A part the shader cannot pose falls back to NumPy's posing (drawn the same, slower):
    one warning naming the file and the limit passed, once however many renderers draw it
    (was: unsaid, a render of a dense rig simply slower)."""
    from test_model_skin_checks import twelve

    path = write_bar(tmp_path, "twelve", twelve)
    caplog.set_level("WARNING")
    for _ in range(2):  # (a second renderer, as a batch's next job: not again)
        planes(gl_context, path, 0.5, True)
    assert said_posed_in_numpy(caplog) == [
        "twelve.gltf: 1 skinned or morphed part of it has 12 joints a vertex (JOINTS_0 to "
        "JOINTS_2), past the 8 the vertex shader poses: it is posed in NumPy every "
        "sub-frame instead (the same pixels, slower: some 2-7 ms a sub-frame for 10,000 "
        "vertices); export it with at most 8 influences a vertex (Blender: Bone Influences) "
        "to pose it in the shader"]
    caplog.clear()
    planes(gl_context, write_bar(tmp_path, "twelve_b", twelve), 0.5, False)
    assert not said_posed_in_numpy(caplog)  # (NumPy's posing asked for: the reference)


def test_more_morph_targets_than_the_shader_takes_are_said(gl_context, tmp_path, caplog,
                                                           monkeypatch):
    from hfrender.renderer import skinning

    monkeypatch.setattr(skinning, "MAX_TARGETS", 0)
    caplog.set_level("WARNING")
    planes(gl_context, write_quad(tmp_path), 0.5, True)
    assert said_posed_in_numpy(caplog) == [
        "quad.gltf: 1 skinned or morphed part of it has 1 morph target, past the 0 the "
        "vertex shader poses: it is posed in NumPy every sub-frame instead (the same "
        "pixels, slower: some 2-7 ms a sub-frame for 10,000 vertices)"]
