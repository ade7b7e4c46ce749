"""A folder of TIFF or JPEG frames as fx's input (and a batch fx job's), read as its one
sequence's pattern as a folder of PNGs is; a folder of two kinds is one line naming the
pattern to give."""

import numpy as np
import pytest

import hfrender as hf
from hfrender.cli import main


def _frames(rng, n=4):
    return rng.integers(0, 256, (n, 8, 12, 3), dtype=np.uint8)


def _write(folder, frames, name, first=1):
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    for i, f in enumerate(frames):
        Image.fromarray(f).save(folder / (name % (first + i)), quality=95)


def _read(path):
    from PIL import Image

    with Image.open(path) as im:
        return np.asarray(im)


def _blurred(frames):
    """What fx --motion-blur 2 --gamma-space makes of ``frames``: tmix's window, frame 0
    standing in before the clip."""
    return hf.motion_blur(np.concatenate([frames[:1], frames]), 2, stride=1,
                          linear_light=False)


@pytest.mark.parametrize("name", ["f.%04d.jpg", "f.%04d.jpeg", "f.%04d.tif", "f.%04d.tiff",
                                  "F_%03d.JPG"])
def test_a_folder_of_jpeg_or_tiff_frames_is_read_as_its_sequence(tmp_path, rng, name):
    """It was "no PNG or EXR images in it", though its pattern was read."""
    frames = _frames(rng)
    _write(tmp_path / "in", frames, name, 1001)
    read = np.stack([_read(tmp_path / "in" / (name % (1001 + i))) for i in range(4)])
    out = tmp_path / "o" / "%04d.png"
    assert main(["fx", str(tmp_path / "in"), "-o", str(out), "--motion-blur", "2",
                 "--gamma-space", "--quiet"]) == 0
    assert sorted(p.name for p in out.parent.iterdir()) == [f"{1001 + i}.png" for i in range(4)]
    got = np.stack([_read(out.parent / f"{1001 + i}.png") for i in range(4)])
    np.testing.assert_array_equal(got, _blurred(read))
    if "tif" in name.lower():  # lossless: the frames as written
        np.testing.assert_array_equal(read, frames)


def test_a_folder_of_png_and_jpeg_frames_is_one_line_naming_the_pattern(tmp_path, rng,
                                                                       capsys):
    frames = _frames(rng)
    _write(tmp_path / "in", frames, "f.%04d.png")
    _write(tmp_path / "in", frames[:3], "f.%04d.jpg")
    assert main(["fx", str(tmp_path / "in"), "-o", str(tmp_path / "o.mp4"),
                 "--motion-blur", "2"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: {tmp_path / 'in'} holds more than one image sequence (f.#.jpg, "
        f"f.#.png); give the one to read as a pattern, e.g. {tmp_path / 'in' / 'f.%04d.png'}"
        "\n")
    assert not (tmp_path / "o.mp4").exists()


def test_a_folder_of_other_pictures_says_what_a_folder_may_hold(tmp_path, rng, capsys):
    from PIL import Image

    (tmp_path / "in").mkdir()
    Image.fromarray(_frames(rng, 1)[0]).save(tmp_path / "in" / "0001.bmp")
    assert main(["fx", str(tmp_path / "in"), "-o", str(tmp_path / "o.mp4"),
                 "--motion-blur", "2"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: input {tmp_path / 'in'} is a folder with no PNG, EXR, TIFF or "
        "JPEG images in it (a sequence's folder, or a pattern such as in/%05d.png)\n")


def test_a_batch_fx_job_reads_a_folder_of_jpegs(tmp_path, rng, monkeypatch):
    frames = _frames(rng, 3)
    _write(tmp_path / "frames", frames, "%04d.jpg")
    read = np.stack([_read(tmp_path / "frames" / f"{i:04d}.jpg") for i in (1, 2, 3)])
    (tmp_path / "jobs.toml").write_text('[[job]]\nname = "shot"\ninput = "frames"\n'
                                        'output = "out/%04d.png"\nmotion-blur = 2\n'
                                        "gamma-space = true\n")
    monkeypatch.chdir(tmp_path)
    assert main(["batch", "jobs.toml", "--quiet"]) == 0
    got = np.stack([_read(tmp_path / "out" / f"{i:04d}.png") for i in (1, 2, 3)])
    np.testing.assert_array_equal(got, _blurred(read))
