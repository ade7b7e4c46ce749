"""Shader files as editors save them: UTF-16 with a byte-order mark (Windows PowerShell's
``Get-Clipboard > s.frag``, Notepad's "Unicode") and classic Mac line ends (CR alone) read
as the text they are, for the Image, a buffer and a common file; a NUL in a buffer is
told as in the Image (was: "defines no mainImage", "is empty")."""

import numpy as np
import pytest

from hfrender.cli import main
from hfrender.renderer.programs import ShaderError

TINT = ("// a tint, as pasted\n"
        "// hfrender: antialias = false\n"
        "void mainImage(out vec4 fragColor, in vec2 fragCoord)\n"
        "{\n"
        "    fragColor = vec4(0.25, 0.5, 0.75, 1.0);\n"
        "}\n")
READS = ("// hfrender: iChannel0 = buf.frag\n"
         "void mainImage(out vec4 c, in vec2 p) { c = texelFetch(iChannel0, ivec2(p), 0); }\n")
SAVED = {
    "utf-16": lambda text: text.encode("utf-16"),  # a BOM, then the machine's order (LE)
    "utf-16-be": lambda text: b"\xfe\xff" + text.encode("utf-16-be"),
    "cr": lambda text: text.replace("\n", "\r").encode(),  # classic Mac OS
    "utf-16 crlf": lambda text: text.replace("\n", "\r\n").encode("utf-16"),
}


def _still(tmp_path, name, capsys):
    """(exit status, the 4x2 still's codes (2, 4, 3), stderr) of ``hfrender still``."""
    from PIL import Image

    out = tmp_path / "o.png"
    status = main(["still", str(tmp_path / name), "--size", "4x2", "--samples", "1",
                   "-o", str(out), "-q"])
    shown = np.asarray(Image.open(out))[..., :3] if out.exists() else None
    return status, shown, capsys.readouterr().err


@pytest.mark.parametrize("saved", sorted(SAVED))
def test_an_image_saved_as_utf16_or_with_cr_line_ends_draws(tmp_path, capsys, saved):
    (tmp_path / "s.frag").write_bytes(SAVED[saved](TINT))
    status, shown, err = _still(tmp_path, "s.frag", capsys)
    assert (status, err) == (0, "")
    assert shown.reshape(-1, 3).tolist() == [[64, 128, 191]] * 8


@pytest.mark.parametrize("saved", sorted(SAVED))
def test_a_buffer_saved_so_is_drawn_for_the_image(tmp_path, capsys, saved):
    (tmp_path / "buf.frag").write_bytes(SAVED[saved](TINT))
    (tmp_path / "image.frag").write_text(READS)
    status, shown, err = _still(tmp_path, "image.frag", capsys)
    assert (status, err) == (0, "")
    assert shown.reshape(-1, 3).tolist() == [[64, 128, 191]] * 8


@pytest.mark.parametrize("saved", ["cr", "utf-16"])
def test_a_common_file_saved_so_is_read(tmp_path, capsys, saved):
    common = "// shared\n#define TINT vec3(0.25, 0.5, 0.75)\nvec3 tint() { return TINT; }\n"
    (tmp_path / "common.glsl").write_bytes(SAVED[saved](common))
    (tmp_path / "s.frag").write_text("// hfrender: common = common.glsl\n"
                                     "void mainImage(out vec4 c, in vec2 p) "
                                     "{ c = vec4(tint(), 1.0); }\n")
    status, shown, err = _still(tmp_path, "s.frag", capsys)
    assert (status, err) == (0, "")
    assert shown.reshape(-1, 3).tolist() == [[64, 128, 191]] * 8


@pytest.mark.parametrize("saved", ["cr", "utf-16"])
def test_a_compile_error_keeps_the_line_the_editor_shows(tmp_path, saved):
    from render_helpers import render_frames

    path = tmp_path / "bad.frag"
    path.write_bytes(SAVED[saved](TINT.replace("0.75", "nope")))
    with pytest.raises(ShaderError, match=rf"^{path}:5: `nope' undeclared"):
        render_frames(path, size=(4, 2), samples=1, duration=1 / 30)


def test_a_nul_in_a_buffer_is_told_at_its_file_and_line(tmp_path, capsys):
    (tmp_path / "buf.frag").write_bytes(b"// a\n/* \0 */\n" + TINT.encode())
    (tmp_path / "image.frag").write_text(READS)
    status, shown, err = _still(tmp_path, "image.frag", capsys)
    assert (status, shown) == (2, None)
    assert err == (f"hfrender: error: {tmp_path / 'buf.frag'}: not a text file (a NUL byte "
                   "on line 2); a shader is GLSL text defining void mainImage(out vec4, in "
                   "vec2)\n")


def test_a_batch_checks_the_pictures_of_a_utf16_shader_before_any_job_runs(tmp_path, capsys):
    """Was: its lines read as UTF-8 with NULs, none seen: the job failed when its turn came."""
    (tmp_path / "s.frag").write_bytes(SAVED["utf-16"](
        "// hfrender: iChannel0 = gone.png\n" + READS.split("\n", 1)[1]))
    (tmp_path / "jobs.toml").write_text('[[job]]\nname = "s"\nscene = "s.frag"\n'
                                        'output = "o.mp4"\nsize = "16x8"\nduration = 0.2\n')
    assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet"]) == 2
    assert capsys.readouterr().err.endswith(
        f"{tmp_path / 's.frag'}:1: hfrender: iChannel0 = gone.png: no such file (a path from "
        "the shader's folder)\n")
    assert not (tmp_path / "o.mp4").exists()
