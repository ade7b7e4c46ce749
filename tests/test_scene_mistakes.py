"""A newcomer's trial of scene scripts: what hfrender says of their mistakes must be what
the next step can do (a hint that the next command refuses is a mistake of ours)."""

from test_render import write_scene

from hfrender.cli import main

RAISES = """
class Late(hf.Scene):
    duration = 1.5

    def setup(self):
        self.ball = self.add(hf.Sphere())
        self.camera.position = (0, 0, 5)

    def update(self, t):
        self.ball.position = (t - 0.75, 0, 0)
        if t > 1.2:
            raise RuntimeError("boom")
"""


def test_a_scene_error_does_not_offer_a_resume_that_mending_the_scene_refuses(tmp_path,
                                                                             capsys):
    """update(t) raised after a whole segment: the kept segments are said, but not as
    "once that is mended, the same command with --resume goes on" (mending the scene
    changes it, and --resume refuses a changed scene)."""
    scene = write_scene(tmp_path, RAISES)
    out = tmp_path / "late.mp4"
    args = ["render", str(scene), "-o", str(out), "--size", "64x36", "--samples", "2"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "RuntimeError: boom" in err and "in whole segments are kept" in err, err
    assert "once that is mended, the same command with --resume" not in err, err
    assert err.rstrip().endswith("only while the scene's files are unchanged: once the "
                                 "scene is mended, render again without --resume"), err
    scene.write_text(scene.read_text().replace('raise RuntimeError("boom")', "pass"))
    assert main([*args, "--resume"]) == 2  # what the message says: refused, changed
    assert "the scene file changed" in capsys.readouterr().err
    assert main(args) == 0 and out.exists()
