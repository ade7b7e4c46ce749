"""A second interrupted run keeps whichever partial output holds more frames (a
never-lose-work trial: a run stopped at 41 frames replaced the 49 of the run before it,
where the warning had said that file "is removed once this run is complete")."""

import os
import re
from pathlib import Path

import numpy as np
import pytest
from render_helpers import stop_at

import hfrender as hf
from hfrender.cli import main
from hfrender.io.probe import probe
from hfrender.renderer.renderer import SceneRenderer

pytestmark = pytest.mark.usefixtures("gl_context")

SCENES = Path(__file__).parents[1] / "scenes"
SMALL = {"size": (32, 18), "samples": 1, "duration": 2.0}  # 60 frames, 30 a segment
ARGS = ["--size", "32x18", "--samples", "1", "--duration", "2"]
READ_INTO = SceneRenderer.read_into  # (each run's stop replaces the one before)
STAYS = ("an interrupted run's {n} frames to watch, stays until this run is complete or "
         "stops with as many (move it elsewhere to keep it)")


def _stopped_at(monkeypatch, n):
    """A Ctrl-C as the ``n``-th sub-frame is read back."""
    stop_at(monkeypatch, SceneRenderer, "read_into", n, READ_INTO)


def _render(monkeypatch, capsys, caplog, tmp_path, out, stop):
    """``hfrender render orbit.py -o OUT`` stopped at the ``stop``-th sub-frame: its
    warnings, then its stderr's last line."""
    _stopped_at(monkeypatch, stop)
    monkeypatch.chdir(tmp_path)
    caplog.clear()
    with caplog.at_level("WARNING"):
        assert main(["render", str(SCENES / "orbit.py"), "-o", out, *ARGS]) == 130
    return [r.getMessage() for r in caplog.records] + capsys.readouterr().err.splitlines()[-1:]


def _frames(path):
    return probe(str(path)).count


def test_a_gif_stopped_sooner_leaves_the_larger_partial_and_says_so(tmp_path, monkeypatch,
                                                                    capsys, caplog):
    said = _render(monkeypatch, capsys, caplog, tmp_path, "g.gif", 40)[-1]
    first = re.fullmatch(r"interrupted: the (\d+) frames finished so far are in "
                         r"g\.partial\.gif \(g\.gif is not written\)", said)
    assert first and _frames(tmp_path / "g.partial.gif") == int(first[1]) > 30, said
    kept = int(first[1])
    err = _render(monkeypatch, capsys, caplog, tmp_path, "g.gif", 25)
    assert err[0] == f"starting g.gif over: g.partial.gif, {STAYS.format(n=kept)}", err
    second = re.fullmatch(rf"interrupted: the (\d+) frames finished so far are not kept: "
                          rf"g\.partial\.gif holds more, an earlier run's {kept}, and stays "
                          r"\(g\.gif is not written\)", err[-1])
    assert second and int(second[1]) < kept, err[-1]
    assert _frames(tmp_path / "g.partial.gif") == kept  # (was: replaced, the fewer frames)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".g.partial.gif.hfrender",
                                                           "g.partial.gif"]
    err = _render(monkeypatch, capsys, caplog, tmp_path, "g.gif", 50)  # more: this run's replace it
    third = re.fullmatch(r"interrupted: the (\d+) frames finished so far are in "
                         r"g\.partial\.gif \(g\.gif is not written\)", err[-1])
    assert third and _frames(tmp_path / "g.partial.gif") == int(third[1]) > kept, err[-1]


def test_a_video_stopped_sooner_keeps_its_segments_and_the_larger_partial(tmp_path,
                                                                          monkeypatch):
    """Its whole segments stay for resume=True; the earlier run's partial video stays."""
    monkeypatch.chdir(tmp_path)
    lines = []
    for stop in (50, 40):
        _stopped_at(monkeypatch, stop)
        with pytest.raises(KeyboardInterrupt) as info:
            hf.render(SCENES / "orbit.py", "v.mp4", **SMALL)
        lines += getattr(info.value, "__notes__", None) or list(info.value.args)
    first = re.fullmatch(r"interrupted: the (\d+) frames finished so far are in v\.partial"
                         r"\.mp4 \(v\.mp4 is not written\); 30 of them in whole segments; "
                         r"continue from frame 30 with the same call and resume=True", lines[0])
    assert first, lines[0]
    kept = int(first[1])
    second = re.fullmatch(rf"interrupted: the (\d+) frames finished so far are not joined into"
                          rf" a partial video: v\.partial\.mp4 holds more, an earlier run's "
                          rf"{kept}, and stays \(v\.mp4 is not written\); 30 of them in whole "
                          r"segments; continue from frame 30 with the same call and "
                          r"resume=True", lines[1])
    assert second and 30 < int(second[1]) < kept, lines[1]
    assert _frames(tmp_path / "v.partial.mp4") == kept
    monkeypatch.setattr(SceneRenderer, "read_into", READ_INTO)
    stats = hf.render(SCENES / "orbit.py", "v.mp4", resume=True, **SMALL)
    assert (stats.resumed_at, _frames(tmp_path / "v.mp4")) == (30, 60)
    assert not (tmp_path / "v.partial.mp4").exists()  # complete: the partial goes


def test_a_sequence_stopped_sooner_keeps_the_larger_partial_folder(tmp_path, monkeypatch,
                                                                   capsys, caplog):
    """The earlier run's frames stay in 'my f/####.png.partial' (and --resume goes on after
    them); the second run's fewer frames go, its hidden folder with them. The warning names
    that folder as a shell takes it and says how to keep it, as a GIF's does (was: bare,
    and without "move it elsewhere")."""
    out, partial = "my f/%04d.png", tmp_path / "my f" / "####.png.partial"
    said = _render(monkeypatch, capsys, caplog, tmp_path, out, 40)[-1]
    kept = len(list(partial.glob("*.png")))
    assert said.startswith(f"interrupted: the {kept} frames finished so far are in ") and \
        kept > 30, said
    err = _render(monkeypatch, capsys, caplog, tmp_path, out, 25)
    assert err[0] == (f"starting {out} over: an interrupted run's {kept} finished frames in "
                      f"'{partial}' stay until this run is complete or stops with as many "
                      "(move it elsewhere to keep it; a run goes on from them only with the "
                      "same settings: render's and fx's --resume, a batch's same job)"), err
    second = re.fullmatch(rf"interrupted: the (\d+) frames finished so far are not kept: "
                          rf"'my f/####\.png\.partial/%04d\.png' holds more, an earlier "
                          rf"run's {kept}, and stays \(my f/%04d\.png is untouched\); continue "
                          rf"from frame {kept} with: hfrender render .* --resume", err[-1])
    assert second and int(second[1]) < kept, err[-1]
    assert len(list(partial.glob("*.png"))) == kept
    assert sorted(p.name for p in (tmp_path / "my f").iterdir()) == ["####.png.partial"]
    monkeypatch.setattr(SceneRenderer, "read_into", READ_INTO)
    assert main(["render", str(SCENES / "orbit.py"), "-o", out, *ARGS,
                 "--resume", "--quiet"]) == 0
    assert len(list((tmp_path / "my f").glob("*.png"))) == 60 and not partial.exists()


def test_reexpose_stopped_sooner_leaves_the_larger_partial(tmp_path, monkeypatch, capsys):
    from hfrender.engine import reexpose

    store, out = tmp_path / "s", tmp_path / "o.mp4"
    frames = hf.render(SCENES / "orbit.py", str(tmp_path / "first.gif"), size=(32, 18),
                       samples=2, duration=0.4, keep_samples=str(store))
    assert frames.frames_written == 12

    def stopped_after(n):
        def some_then_stop(kept, exposure, sink, **kwargs):
            for k in range(n):
                sink.write(np.full((18, 32, 3), 20 * k, np.uint8))
            raise KeyboardInterrupt
        monkeypatch.setattr(reexpose, "run_exposure", some_then_stop)
        assert main(["reexpose", str(store), "-o", str(out)]) == 130
        return capsys.readouterr().err.splitlines()[-1]

    assert stopped_after(7) == (f"interrupted: the 7 frames finished so far are in "
                                f"{tmp_path / 'o.partial.mp4'} ({out} is not written); run "
                                "the same command again to expose it whole")
    assert stopped_after(4) == (f"interrupted: the 4 frames finished so far are not joined "
                                f"into a partial video: {tmp_path / 'o.partial.mp4'} holds "
                                f"more, an earlier run's 7, and stays ({out} is not written);"
                                " run the same command again to expose it whole")
    assert _frames(tmp_path / "o.partial.mp4") == 7


def test_fx_into_a_sequence_stopped_sooner_keeps_the_larger_partial(tmp_path, rng,
                                                                    monkeypatch, capsys):
    import imageio.v3 as iio

    from hfrender.io.footage import SequenceFootage

    src = tmp_path / "in"
    src.mkdir()
    for i, f in enumerate(rng.integers(0, 256, (40, 18, 32, 3), dtype=np.uint8)):
        iio.imwrite(src / f"shot.{1001 + i}.png", f)
    out, partial = tmp_path / "o" / "o.%d.png", tmp_path / "o" / "o.#.png.partial"
    read_into = SequenceFootage.read_into

    def stopped_after(n):
        reads = []

        def reading(footage, buf):
            reads.append(1)
            if len(reads) == n:
                raise KeyboardInterrupt
            return read_into(footage, buf)

        monkeypatch.setattr(SequenceFootage, "read_into", reading)
        assert main(["fx", str(src / "shot.%d.png"), "-o", str(out), "--motion-blur", "3",
                     "--fps", "24", "--workers", "1"]) == 130
        return capsys.readouterr().err.splitlines()

    said = stopped_after(30)[-1]
    kept = len(list(partial.glob("o.*.png")))
    assert said.startswith(f"interrupted: the {kept} frames finished so far are in ") and \
        10 < kept < 40, said
    err = stopped_after(12)
    second = re.search(rf"interrupted: the (\d+) frames finished so far are not kept: "
                       rf"'{re.escape(str(partial))}/o\.%d\.png' holds more, an earlier run's "
                       rf"{kept}, and stays \({re.escape(str(out))} is untouched\); continue "
                       "with: ", err[-1])
    assert second and int(second[1]) < kept, err
    assert len(list(partial.glob("o.*.png"))) == kept
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["o.#.png.partial"]


def test_a_batch_gif_job_stopped_counts_no_frame_kept(tmp_path, monkeypatch):
    """The summary's frames of an interrupted GIF job: those the next run does not make
    again, none (it starts over: a GIF's palette is made whole), though its partial output
    stays to watch, the earlier run's where it holds more (were the frames that partial
    holds, 38 twice; a video's count its whole segments, docs/batch.md); frames_made: this
    run's, the second's fewer."""
    import json

    (tmp_path / "jobs.toml").write_text(
        f'[[job]]\nname = "g"\nscene = "{SCENES / "orbit.py"}"\noutput = "g.gif"\n'
        'size = "32x18"\nsamples = 1\nduration = 2.0\n')
    monkeypatch.chdir(tmp_path)
    counts = []
    for stop in (40, 25):
        _stopped_at(monkeypatch, stop)
        assert main(["batch", "jobs.toml", "--summary", "s.json", "--quiet"]) == 130
        [job] = json.loads((tmp_path / "s.json").read_text())
        counts.append((job["status"], job["frames"], job["frames_made"]))
    held = _frames(tmp_path / "g.partial.gif")  # the first run's, more: it stays
    assert counts[0] == ("interrupted", 0, held) and held > 30, counts
    assert counts[1][:2] == ("interrupted", 0) and 10 < counts[1][2] < held, counts


def _batch_stopped(monkeypatch, capsys, stop):
    """``hfrender batch jobs.toml`` stopped at the ``stop``-th sub-frame: its Ctrl-C line."""
    _stopped_at(monkeypatch, stop)
    assert main(["batch", "jobs.toml", "--quiet"]) == 130
    return [line for line in capsys.readouterr().err.splitlines()
            if line.startswith("interrupted:")]


def test_a_batch_gif_job_stopped_says_where_its_frames_are(tmp_path, monkeypatch, capsys):
    """A GIF job has no segments: its line names its partial output, nothing of segments
    (was: "(no segment was whole: the next run starts it over)"). Stopped again sooner, its
    line says the earlier run's partial output stays (was: nothing, that file's time older
    than the run's start)."""
    (tmp_path / "jobs.toml").write_text(
        f'[[job]]\nname = "g"\nscene = "{SCENES / "orbit.py"}"\noutput = "g.gif"\n'
        'size = "32x18"\nsamples = 1\nduration = 2.0\n')
    monkeypatch.chdir(tmp_path)
    assert _batch_stopped(monkeypatch, capsys, 40) == [
        "interrupted: 0 of 1 jobs finished; run the same command again to go on (finished "
        "jobs are skipped, 'g' (a GIF) starts over: it is made whole); the frames of job 'g' "
        f"so far are in {tmp_path / 'g.partial.gif'}"]
    partial, kept = tmp_path / "g.partial.gif", _frames(tmp_path / "g.partial.gif")
    assert kept > 30
    os.utime(partial, (partial.stat().st_atime - 60, partial.stat().st_mtime - 60))
    [said] = _batch_stopped(monkeypatch, capsys, 25)
    second = re.fullmatch(
        r"interrupted: 0 of 1 jobs finished; run the same command again to go on \(finished "
        r"jobs are skipped, 'g' \(a GIF\) starts over: it is made whole\); the (\d+) frames "
        rf"of job 'g' finished so far are not kept: g\.partial\.gif holds more, an earlier "
        rf"run's {kept}, and stays \(g\.gif is not written\)", said)  # (as the table names it)
    assert second and 0 < int(second[1]) < kept, said
    assert _frames(partial) == kept
