"""What the Shadertoy shader tests share: ``RED``, a shader of one colour; ``_frag``, a
shader's text written to a file; ``_one``, its first frame at 8x4."""


from render_helpers import render_frames

RED = "void mainImage(out vec4 fragColor, in vec2 fragCoord) {\n" \
      "    fragColor = vec4(1.0, 0.0, 0.0, 1.0);\n}\n"


def _frag(tmp_path, text, name="s.frag", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def _one(path, **settings):
    frames, _ = render_frames(path, size=(8, 4), samples=1, duration=1 / 30, **settings)
    return frames[0]
