"""A model's bad input in one line naming the file as the scene gives it: bad files, a
missing texture warned of, no trimesh or an older one, NaN vertices, a scene loading a bad
model (exit 2); a path from home expanded."""

import re
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import pytest
from mesh_helpers import (
    write,
)

import hfrender as hf
from hfrender.scene import meshes

trimesh = pytest.importorskip("trimesh", reason="the models extra: pip install -e '.[dev]'")
Image = pytest.importorskip("PIL.Image")


# --- files ---------------------------------------------------------------------------------
def test_missing_files_and_folders_are_one_line_naming_them(tmp_path, monkeypatch):
    missing = tmp_path / "missing.glb"
    with pytest.raises(meshes.ModelError) as excinfo:
        hf.Mesh.load(missing)
    assert str(excinfo.value) == f"{missing}: model file not found ({missing} does not exist)"
    # a relative path: where it was looked for, beside the script and in the folder (it
    # named neither)
    with pytest.raises(meshes.ModelError) as excinfo:
        hf.Mesh.load("gone.glb")
    here, cwd = Path(__file__).parent / "gone.glb", Path.cwd() / "gone.glb"
    assert str(excinfo.value) == (f"gone.glb: model file not found (neither {here} nor {cwd} "
                                  "exists)" if here != cwd else
                                  f"gone.glb: model file not found ({here} does not exist)")
    # a folder, or a path of no suffix not there (was: "unsupported model format '(no
    # suffix)'"); a file of no suffix that is there is one of no format
    monkeypatch.chdir(tmp_path)
    for folder in (tmp_path, tmp_path / "assets.glb", "assets"):
        Path(folder).mkdir(exist_ok=True)
        with pytest.raises(meshes.ModelError) as excinfo:
            hf.Mesh.load(folder)
        assert str(excinfo.value) == (f"{folder}: a folder, not a model file: give a model "
                                      "file's path (one of .glb, .gltf, .obj, .stl, .ply)")
    with pytest.raises(meshes.ModelError) as excinfo:
        hf.Mesh.load(tmp_path / "toy")
    assert str(excinfo.value) == (f"{tmp_path / 'toy'}: model file not found ("
                                  f"{tmp_path / 'toy'} does not exist)")


def test_bad_files_are_one_line_naming_the_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # (as where the folders above were looked for)
    (tmp_path / "toy").write_bytes(b"x")
    with pytest.raises(meshes.ModelError, match=r"toy: unsupported model format '\(no "
                                                r"suffix\)'; use one of \.glb"):
        hf.Mesh.load(tmp_path / "toy")
    fbx = tmp_path / "model.fbx"
    fbx.write_bytes(b"x")
    with pytest.raises(meshes.ModelError, match=r"model\.fbx: unsupported model format "
                                                r"'\.fbx'; use one of \.glb, \.gltf"):
        hf.Mesh.load(fbx)
    cloud = tmp_path / "points.ply"
    trimesh.PointCloud(np.random.default_rng(1).random((20, 3))).export(cloud)
    with pytest.raises(meshes.ModelError, match=r"points\.ply: the file has no triangles"):
        hf.Mesh.load(cloud)
    missing_buffer = ('{"asset": {"version": "2.0"}, "buffers": [{"uri": "gone.bin", '
                      '"byteLength": 36}], "bufferViews": [{"buffer": 0, "byteLength": 36}], '
                      '"accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, '
                      '"type": "VEC3"}], "meshes": [{"primitives": [{"attributes": '
                      '{"POSITION": 0}}]}], "nodes": [{"mesh": 0}], "scenes": [{"nodes": '
                      '[0]}]}')
    for name, data, says in (
            ("notgltf.glb", b"PK\x03\x04 a zip file", r"not a glTF 2\.0 binary file"),
            ("broken.glb", b"glTF\x02\x00\x00\x00garbage", r"cannot read the glb file: \w+"),
            ("broken.gltf", b'{"asset": {"version": "2.0"}, "meshes": [{"primi',
             r"not a glTF file: invalid JSON \(.*line 1 column \d+"),
            ("nobuffer.gltf", missing_buffer.encode(), r"cannot read the gltf file: \w+")):
        (tmp_path / name).write_bytes(data)
        with pytest.raises(meshes.ModelError) as info:
            hf.Mesh.load(tmp_path / name)
        message = str(info.value)
        assert message.startswith(f"{tmp_path / name}: ") and "\n" not in message, message
        assert re.search(says, message), message
    empty = tmp_path / "empty.gltf"
    empty.write_text('{"asset": {"version": "2.0"}}')
    with pytest.raises(meshes.ModelError, match="empty.gltf: the file has no triangles"):
        hf.Mesh.load(empty)
    (tmp_path / "zero.stl").write_bytes(b"")  # (was: "text that is not an ASCII STL")
    with pytest.raises(meshes.ModelError, match=r"zero\.stl: the file has no triangles: it "
                                                r"is empty$"):
        hf.Mesh.load(tmp_path / "zero.stl")


def test_no_path_or_a_path_given_to_the_class_is_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for given in ("", "  "):  # (was: ".: unsupported model format '(no suffix)'")
        with pytest.raises(meshes.ModelError, match=rf"^Mesh\.load\({given!r}\): give the "
                                                    r"model file's path"):
            hf.Mesh.load(given)
    with pytest.raises(meshes.ModelError, match=r"no model: make it with hf.Mesh.load"):
        hf.Mesh().geometry  # noqa: B018
    # the API slips: a path given to the class (it said "Mesh.position='box.glb' must be 3
    # finite numbers"), no path at all (Path's own TypeError)
    with pytest.raises(meshes.ModelError, match=r"^hf.Mesh\('box.glb'\): a model is loaded "
                                                r"with hf.Mesh.load\('box.glb'\)$"):
        hf.Mesh("box.glb")
    with pytest.raises(meshes.ModelError, match=r"^Mesh.load\(None\): give the model file's "
                                                r"path \(a str or Path\)"):
        hf.Mesh.load(None)
    assert hf.Mesh(position=(0, 1, 2)).position == (0.0, 1.0, 2.0)  # a place is a place


def test_a_texture_that_is_not_there_is_warned_of(tmp_path, caplog):
    """An OBJ whose material names a missing image drew a plain model without a word
    (trimesh says it only in its debug log); its other log lines are not shown."""
    (tmp_path / "m.mtl").write_text("newmtl mat\nKd 1 1 1\nmap_Kd tex/gone.png\n")
    (tmp_path / "tri.obj").write_text("mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\n"
                                      "vt 1 0\nvt 0 1\nusemtl mat\nf 1/1 2/2 3/3\n")
    with caplog.at_level("INFO"):  # as -v shows it
        model = hf.Mesh.load(tmp_path / "tri.obj")
    assert model.triangles == 1
    said = [(r.name, r.getMessage()) for r in caplog.records if r.levelno >= 30]
    assert said == [("hfrender.scene.meshes", f"{tmp_path / 'tri.obj'}: tex/gone.png is not "
                     "there (beside the model); drawn without it, in the model's colours")]
    assert not [r for r in caplog.records if r.name.startswith("trimesh")]
    (tmp_path / "tex").mkdir()
    iio.imwrite(tmp_path / "tex" / "gone.png", np.full((2, 2, 3), 200, np.uint8))  # there now
    with open(tmp_path / "tri.obj", "a") as f:
        f.write("# read again\n")  # (its size changed: not the model kept from before)
    caplog.clear()
    with caplog.at_level("WARNING"):
        hf.Mesh.load(tmp_path / "tri.obj")
    assert not caplog.records
    (tmp_path / "m.mtl").unlink()  # the material library itself (was: not a word)
    with open(tmp_path / "tri.obj", "a") as f:
        f.write("# and again\n")
    with caplog.at_level("WARNING"):
        assert hf.Mesh.load(tmp_path / "tri.obj").triangles == 1
    assert [r.getMessage() for r in caplog.records] == [
        f"{tmp_path / 'tri.obj'}: m.mtl is not there (beside the model); drawn without it, in "
        "the model's colours"]


def test_a_models_errors_name_it_as_the_scene_gives_it(tmp_path, capsys):
    """A model found beside the scene was named by its absolute path in its errors (the
    README quotes ``model.fbx: unsupported model format ...``)."""
    from test_render import write_scene

    from hfrender.cli import main

    (tmp_path / "model.fbx").write_bytes(b"x")
    scene = write_scene(tmp_path, """
    class M(hf.Scene):
        def setup(self):
            self.add(hf.Mesh.load("model.fbx"))
    """)
    assert main(["render", str(scene), "-o", str(tmp_path / "m.mp4"), "--size", "32x18",
                 "--quiet"]) == 2
    assert ": ModelError: model.fbx: unsupported model format '.fbx'; use one of .glb, " \
        in capsys.readouterr().err


def test_without_trimesh_the_error_names_the_extra(tmp_path, monkeypatch):
    path = write(trimesh.creation.box(), tmp_path / "box.stl")
    monkeypatch.setitem(__import__("sys").modules, "trimesh", None)
    with pytest.raises(meshes.ModelError, match=r"pip install 'hfrender\[models\]'$"):
        hf.Mesh.load(path)


def test_a_scene_loading_a_bad_model_is_bad_input_exit_2(tmp_path, capsys):
    from hfrender.cli import main

    (tmp_path / "bad.glb").write_bytes(b"not a model")
    scene = tmp_path / "uses_bad.py"
    scene.write_text("import hfrender as hf\n\nclass S(hf.Scene):\n    duration = 0.1\n\n"
                     "    def setup(self):\n        self.add(hf.Mesh.load('bad.glb'))\n")
    assert main(["render", str(scene), "-o", str(tmp_path / "o.mp4"), "--size", "64x36",
                 "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("hfrender: error: scene error in setup(): "
                                               "ModelError: ")
    assert "bad.glb: not a glTF 2.0 binary file" in err[0] and "uses_bad.py:7)" in err[0]
    assert not (tmp_path / "o.mp4").exists()


def test_a_model_path_from_home_is_expanded(tmp_path, monkeypatch):
    """``hf.Mesh.load("~/models/box.obj")`` was looked for in a folder named ``~``."""
    trimesh = pytest.importorskip("trimesh")
    (tmp_path / "models").mkdir()
    trimesh.creation.box().export(tmp_path / "models" / "box.obj")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert hf.Mesh.load("~/models/box.obj").triangles == 12


def test_a_model_with_nan_vertices_is_said_and_bounded_by_the_rest(tmp_path, caplog):
    """A PLY with a NaN vertex loaded silently with bounds of NaN: a user centring it from
    them was refused at their own line, the file unnamed."""
    (tmp_path / "nan.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 2 0\nv nan 0 0\n"
                                      "f 1 2 3\nf 1 2 4\n")
    with caplog.at_level("WARNING"):
        model = hf.Mesh.load(tmp_path / "nan.obj")
    np.testing.assert_array_equal(model.bounds, [[0, 0, 0], [1, 2, 0]])
    assert [r.getMessage() for r in caplog.records] == [
        f"{tmp_path / 'nan.obj'}: 1 of its 4 vertices is NaN or infinite: the triangles "
        "using them are not drawn, and its bounds are the other vertices'"]
    (tmp_path / "all.obj").write_text("v nan 0 0\nv 1 inf 0\nv 0 0 nan\nf 1 2 3\n")
    with pytest.raises(meshes.ModelError, match=r"all\.obj: no vertex of it is a finite "
                                                r"number \(NaN or infinity\)$"):
        hf.Mesh.load(tmp_path / "all.obj")


def test_an_older_trimesh_is_named_with_the_least_it_needs(tmp_path, monkeypatch):
    # was: a glTF of emissive strength 4 (scenes/windmill.glb) refused by trimesh 4.6-4.11
    # as "all factors must be between 0.0-1.0", read as a broken file
    path = write(trimesh.creation.box(), tmp_path / "old.stl")
    monkeypatch.setattr(trimesh, "__version__", "4.9.0")
    with pytest.raises(meshes.ModelError) as err:
        hf.Mesh.load(path)
    assert str(err.value) == ("hf.Mesh.load needs trimesh >= 4.12 (this is 4.9.0): pip "
                              "install -U 'hfrender[models]'")
