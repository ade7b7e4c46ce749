"""The second, quiet setup() of a scene's file (:func:`hfrender.scene.ready.first_look`,
which compares it with the first): nothing it says reaches the user a second time."""

from test_render import write_scene

from hfrender.cli import main


def test_the_second_setup_says_nothing_on_stderr_nor_in_the_log(tmp_path, capsys, caplog,
                                                                 recwarn):
    """The second setup() kept its prints to stdout quiet, but what it wrote on stderr, the
    warnings it gave and what it logged were said twice (a trial: each line of a scene's
    setup() on stderr, once before this session, twice)."""
    scene = write_scene(tmp_path, """
    import logging
    import sys
    import warnings

    class Noisy(hf.Scene):
        duration = 0.2

        def setup(self):
            print("SETUP on stderr", file=sys.stderr)
            warnings.warn("SETUP warned")
            logging.getLogger("noisy").warning("SETUP logged")
            self.ball = self.add(hf.Sphere(radius=0.2))
    """)
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "s.png"), "--size", "32x18",
                     "--samples", "1", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.count("SETUP on stderr") == 1, err
    assert [str(w.message) for w in recwarn if "SETUP" in str(w.message)] == ["SETUP warned"]
    assert [r.getMessage() for r in caplog.records if "SETUP" in r.getMessage()] == [
        "SETUP logged"]
