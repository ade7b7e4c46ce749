"""A shader's lines name files with ``\\`` between folders as a Windows user writes them
(``// hfrender: iChannel0 = textures\\noise.png``): the same file on every system, so a
shader written on Windows renders on Linux and a Ray cluster (was: "no such file (a path
from the shader's folder)" on Linux for a file that is there)."""

import numpy as np

from hfrender.cli import main

MAIN = "void mainImage(out vec4 c, in vec2 p) "


def _still(tmp_path, capsys):
    from PIL import Image

    out = tmp_path / "o.png"
    status = main(["still", str(tmp_path / "s.frag"), "--size", "4x2", "--samples", "1",
                   "-o", str(out), "-q"])
    assert (status, capsys.readouterr().err) == (0, "")
    return np.asarray(Image.open(out))[..., :3].reshape(-1, 3).tolist()


def test_backslashed_paths_name_a_picture_a_buffer_and_a_common_file(tmp_path, capsys):
    import imageio.v3 as iio

    for folder in ("tex", "passes", "lib"):
        (tmp_path / folder).mkdir()
    iio.imwrite(tmp_path / "tex" / "n.png", np.full((2, 2, 3), (200, 0, 0), np.uint8))
    (tmp_path / "lib" / "common.glsl").write_text("float half_of(float x) { return x / 2.0; }\n")
    (tmp_path / "passes" / "buf.frag").write_text(MAIN + "{ c = vec4(0, 0, 0.75, 1); }\n")
    (tmp_path / "s.frag").write_text(
        "// hfrender: iChannel0 = tex\\n.png\n"
        "// hfrender: iChannel1 = passes\\buf.frag\n"
        "// hfrender: common = lib\\common.glsl\n"
        + MAIN + "{ vec2 uv = p / iResolution.xy;\n"
        "  c = vec4(texture(iChannel0, uv).r, half_of(1.0), texture(iChannel1, uv).b, 1); }\n")
    assert _still(tmp_path, capsys) == [[200, 128, 191]] * 8


def test_a_file_whose_name_holds_a_backslash_is_still_its_own(tmp_path, capsys):
    """Where ``a\\b.png`` is a file of that name (Linux allows it), that file is read."""
    import imageio.v3 as iio

    (tmp_path / "a").mkdir()
    iio.imwrite(tmp_path / "a\\b.png", np.full((2, 2, 3), 40, np.uint8))
    iio.imwrite(tmp_path / "a" / "b.png", np.full((2, 2, 3), 220, np.uint8))
    (tmp_path / "s.frag").write_text("// hfrender: iChannel0 = a\\b.png\n" + MAIN +
                                     "{ c = texture(iChannel0, p / iResolution.xy); }\n")
    assert _still(tmp_path, capsys) == [[40, 40, 40]] * 8
