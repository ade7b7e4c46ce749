"""What ``hfrender reexpose`` says of an output it cannot write as asked: advice that this
command can follow (it has no --size: the store's size is its own)."""

from store_helpers import write_store

from hfrender.cli import main


def test_an_odd_sized_stores_video_is_told_what_reexpose_can_do(tmp_path, capsys):
    store = write_store(tmp_path / "odd.samples", size=(17, 9))
    out = tmp_path / "odd.mp4"
    assert main(["reexpose", str(store), "-o", str(out)]) == 2
    err = capsys.readouterr().err  # (was: "...; use 16x8, or --pix-fmt yuv444p, ...", a
    # size reexpose has no option for)
    assert err == ("hfrender: error: size 17x9 (the store's): libx264 video in yuv420p needs "
                   "an even width and height; give --pix-fmt yuv444p, or write a PNG "
                   "sequence (-o frames/%05d.png)\n")
    assert not out.exists()
    assert main(["reexpose", str(store), "-o", str(out), "--pix-fmt", "yuv444p", "-q"]) == 0
    assert out.is_file()


def test_a_sequence_is_named_by_its_first_and_last_files_as_render_names_it(tmp_path, capsys):
    """reexpose said ``wrote .../%03d.png: 3 frames ...``, a name no file has, where render
    and fx name the files (``.../000.png .. 002.png``)."""
    store = write_store(tmp_path / "s.samples")
    out = tmp_path / "png" / "%03d.png"
    assert main(["reexpose", str(store), "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"wrote {tmp_path / 'png' / '000.png'} .. 002.png: 3 frames from "
                           "6 kept sub-frames"), said
    assert sorted(p.name for p in out.parent.iterdir()) == ["000.png", "001.png", "002.png"]
