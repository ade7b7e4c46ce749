"""The folders and files a stopped or failed run keeps, said so that the path pasted into a
shell is the one path: quoted where it holds a space or a ``#`` (was: ``are in
my shots/####.png.partial/%04d.png`` bare, which a shell reads as ``my``, ``shots/`` and a
comment)."""

import shlex
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest
from render_helpers import stop_at

from hfrender.cli import main
from hfrender.io.writers import PngSequenceWriter

pytestmark = pytest.mark.usefixtures("gl_context")
SMALL = ["--size", "32x18", "--samples", "1", "--quiet"]


def _late(tmp_path: Path) -> Path:
    """A scene that fails half-way: its first 16 frames (of 30) are made."""
    path = tmp_path / "late.py"
    path.write_text(textwrap.dedent("""
        import hfrender as hf

        class Late(hf.Scene):
            duration = 1.0
            def setup(self):
                self.add(hf.Cube())
            def update(self, t):
                if t > 0.5:
                    raise RuntimeError("late")
    """))
    return path


def _pasted(line: str, before: str, after: str) -> list[str]:
    """The words a shell makes of what ``line`` says between ``before`` and ``after``."""
    return shlex.split(line.split(before, 1)[1].split(after, 1)[0])


def _stop_at_read_back(monkeypatch, n: int) -> None:
    from hfrender.renderer.renderer import SceneRenderer

    stop_at(monkeypatch, SceneRenderer, "read_into", n)


def test_a_failed_sequence_render_quotes_its_kept_folder_and_store(tmp_path, capsys):
    shots, store = tmp_path / "my shots", tmp_path / "my store"
    shots.mkdir()
    assert main(["render", str(_late(tmp_path)), "-o", str(shots / "####.png"), *SMALL,
                 "--keep-samples", str(store)]) == 1
    err = capsys.readouterr().err
    kept = shots / "####.png.partial"
    assert sorted(p.name for p in kept.glob("*.png")) == [f"{i:04d}.png" for i in range(16)]
    assert err.endswith(
        f"/late.py:10); the 16 frames finished so far are in '{kept}/%04d.png' "
        f"({shots}/%04d.png is untouched); mend the scene, then run the same command "
        "again: it starts over (--resume without --keep-samples goes on from frame 16 only "
        "while the scene's files are unchanged); the unfinished sample store "
        f"'{tmp_path}/my store.partial' can go (a store holds a whole render)\n"), err
    assert _pasted(err, " are in ", " (") == [str(kept / "%04d.png")]
    assert _pasted(err, " sample store ", " can go") == [f"{store}.partial"]
    assert (tmp_path / "my store.partial").is_dir()


def test_an_interrupted_sequence_render_quotes_its_kept_folder(tmp_path, capsys,
                                                              monkeypatch):
    _stop_at_read_back(monkeypatch, 9)  # as the 9th frame is read back
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a b").mkdir()
    argv = ["render", str(_late(tmp_path)), "-o", "a b/#.png", *SMALL, "--keep-samples",
            "k #1"]
    monkeypatch.setattr("sys.argv", ["hfrender", *argv])  # (the command offered is its own)
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert err == (
        "interrupted: the 8 frames finished so far are in 'a b/#.png.partial/%01d.png' (a b/"
        f"%01d.png is untouched); continue from frame 8 with: hfrender render {tmp_path}/"
        "late.py -o 'a b/#.png' --size 32x18 --samples 1 --quiet --resume (without "
        "--keep-samples: a sample store holds a whole render; the unfinished 'k #1.partial' "
        "can go)\n"), err
    assert sorted(p.name for p in (tmp_path / "a b" / "#.png.partial").glob("*.png")) == [
        f"{i}.png" for i in range(8)]


def _clip(tmp_path: Path, rng) -> Path:
    import imageio.v3 as iio

    (tmp_path / "in").mkdir()
    for i, frame in enumerate(rng.integers(0, 256, (8, 18, 32, 3), dtype=np.uint8)):
        iio.imwrite(tmp_path / "in" / f"{i:04d}.png", frame)
    return tmp_path / "in" / "%04d.png"


def test_fx_quotes_the_folder_it_kept_failed_and_interrupted(tmp_path, capsys, monkeypatch,
                                                             rng):
    import imageio.v3 as iio

    clip, out = _clip(tmp_path, rng), tmp_path / "my out" / "#####.png"
    (tmp_path / "d").mkdir()  # a depth pass whose frame 5 is bad: 5 frames are made first
    for i in range(8):
        iio.imwrite(tmp_path / "d" / f"{i:04d}.png", np.full((18, 32), 0 if i == 5 else 2000,
                                                            np.uint16))
    assert main(["fx", str(clip), "-o", str(out), "--depth", str(tmp_path / "d"),
                 "--depth-scale", "0.001", "--focus-distance", "2", "--f-stop", "2",
                 "--quiet"]) == 2
    kept = tmp_path / "my out" / "#####.png.partial"
    n = len(list(kept.glob("*.png")))
    assert capsys.readouterr().err.endswith(  # (as many as were fused before frame 5)
        f"; the {n} frames finished so far are in '{kept}/%05d.png' ({tmp_path}/my out/"
        "%05d.png is untouched)\n") and 0 < n <= 5
    stop_at(monkeypatch, PngSequenceWriter, "write", 4)  # (fx writes in its main thread)
    argv = ["fx", str(clip), "-o", str(out), "--motion-blur", "2"]
    monkeypatch.setattr("sys.argv", ["hfrender", *argv])
    assert main(argv) == 130
    assert capsys.readouterr().err == (  # (the failed run's, more, stay)
        f"interrupted: the 3 frames finished so far are not kept: '{kept}/%05d.png' holds "
        f"more, an earlier run's {n}, and stays ({tmp_path}/my out/%05d.png is untouched); "
        f"continue with: hfrender fx {clip} -o '{out}' --motion-blur 2 --resume\n") and n > 3
    assert sorted(p.name for p in kept.glob("*.png")) == [f"{i:05d}.png" for i in range(n)]
    shutil.rmtree(kept)  # none: this run's are kept
    stop_at(monkeypatch, PngSequenceWriter, "write", 4)
    assert main(argv) == 130
    assert capsys.readouterr().err == (
        f"interrupted: the 3 frames finished so far are in '{kept}/%05d.png' ({tmp_path}/"
        f"my out/%05d.png is untouched); continue with: hfrender fx {clip} -o '{out}' "
        "--motion-blur 2 --resume\n")
    assert sorted(p.name for p in kept.glob("*.png")) == [f"{i:05d}.png" for i in range(3)]


def _jobs(tmp_path: Path, scene: Path) -> Path:
    jobs = tmp_path / "jobs.toml"
    jobs.write_text(f'[[job]]\nname = "late"\nscene = "{scene.name}"\n'
                    'output = "my out/#.png"\nsize = "32x18"\nsamples = 1\n')
    return jobs


def test_a_batch_quotes_the_folder_a_failed_or_interrupted_job_kept(tmp_path, capsys,
                                                                    monkeypatch):
    import json

    jobs, kept = _jobs(tmp_path, _late(tmp_path)), tmp_path / "my out" / "#.png.partial"
    summary = tmp_path / "s.json"
    assert main(["batch", str(jobs), "--summary", str(summary), "--quiet"]) == 1
    error = json.loads(summary.read_text())[0]["error"]
    assert error.endswith(
        f"/late.py:10); the frames finished so far are in '{kept}/%01d.png'"), error
    assert len(list(kept.glob("*.png"))) == 16
    shutil.rmtree(kept)  # (the next run starts over)
    _stop_at_read_back(monkeypatch, 5)
    assert main(["batch", str(jobs), "--summary", str(summary), "--quiet"]) == 130
    assert capsys.readouterr().err.rstrip().endswith(
        f"; the frames of job 'late' so far are in '{kept}/%01d.png'")
    assert sorted(p.name for p in kept.glob("*.png")) == [f"{i}.png" for i in range(4)]


def test_an_unfinished_run_whose_partial_name_is_taken_says_where_its_frames_stay(tmp_path):
    from hfrender.io import outputs
    from hfrender.io.writers import WriteFailed

    folder = tmp_path / "my shots"
    folder.mkdir()
    out, taken = folder / "o.mp4", folder / "o.partial.mp4"
    taken.write_bytes(b"a user's file")  # (since the run's check: not hfrender's)
    tmp = outputs.temporary(str(out))
    Path(tmp).write_bytes(b"the unfinished frames")
    with pytest.raises(WriteFailed) as e:
        outputs.keep_partial(tmp, str(out), 3)
    said = str(e.value)
    assert said == f"{taken} is not hfrender's: the unfinished frames stay in {shlex.quote(tmp)}"
    assert _pasted(said, "stay in ", "\n") == [tmp] and Path(tmp).is_file()


def test_a_sample_store_that_cannot_be_written_says_where_its_chunks_stay(tmp_path):
    import errno

    from hfrender.io.store import StoreWriter

    store = tmp_path / "my samples" / "s.samples"
    writer = StoreWriter(store, {}, (4, 4))
    try:
        said = str(writer.failed(OSError(errno.EISDIR, "Is a directory")))
    finally:
        writer._drain()
    assert said == (f"--keep-samples {store}: cannot write the sample store: Is a directory "
                    f"(what was kept so far is in '{store}.partial'; delete it, or free the "
                    "space and render again)")
    assert _pasted(said, "so far is in ", ";") == [f"{store}.partial"]


def test_a_join_that_fails_says_where_the_segments_stay(tmp_path):
    from hfrender.io.join import WriteFailed, join

    folder = tmp_path / "work #2"
    folder.mkdir()
    with pytest.raises(WriteFailed) as e:
        join([folder / "seg_00000000.ts"], str(tmp_path / "o.mp4"), folder, 30.0)
    said = str(e.value)
    assert said.endswith(f"(the segments stay in '{folder}': once that is mended, the same "
                         "command with --resume joins them)")
    assert _pasted(said, "the segments stay in ", ":") == [str(folder)]


def test_a_job_whose_interrupted_frames_would_go_to_another_jobs_file_says_it(tmp_path):
    from hfrender.engine.batch import load_jobs
    from hfrender.errors import InputError

    folder = tmp_path / "my jobs"
    folder.mkdir()
    (folder / "bar.frag").write_text((Path(__file__).parent / "data" / "bar.frag").read_text())
    (folder / "jobs.toml").write_text(
        '[defaults]\nsize = "32x8"\nfps = 24\nduration = 0.25\n\n'
        '[[job]]\nname = "bar"\nscene = "bar.frag"\noutput = "out/bar.mp4"\n\n'
        '[[job]]\nname = "other"\nscene = "bar.frag"\noutput = "out/bar.partial.mp4"\n')
    with pytest.raises(InputError) as e:
        load_jobs(folder / "jobs.toml")
    partial = folder / "out" / "bar.partial.mp4"
    assert str(e.value) == (f"{folder / 'jobs.toml'}: job 'bar' would keep an interrupted "
                            f"run's frames in '{partial}', the output of job 'other': name one "
                            "of them otherwise")
    assert _pasted(str(e.value), "frames in ", ",") == [str(partial)]
