"""The render and fx settings' numbers by one rule (hfrender.numeric): a Decimal, Fraction or
NumPy number taken wherever a float is, as a float (was: Decimal('2.5') refused, Fraction(1,
3) kept as a Fraction, np.float32 fps a TypeError traceback); a whole number wherever an int
is, as an int; 10**400 one line (was an OverflowError traceback: shutter, fps, audio_offset,
duration, max_coc_px, fx's depth_scale and input_fps); True, NaN, inf and '3' refused."""

import math
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import hfrender as hf
from hfrender.config import ConfigError, RenderConfig
from hfrender.engine.fx_settings import FxSettings

BAR = str(Path(__file__).parent / "data" / "bar.frag")
# (value, its float), taken by a setting of seconds, degrees, frames a second, metres
FLOATS = [(Decimal("2.5"), 2.5), (Fraction(1, 3), 1 / 3), (np.float32(2.5), 2.5),
          (np.int64(3), 3.0), (np.float64(0.75), 0.75)]
# refused by every number setting: (value, as the line says it)
REFUSED = [(10**400, "100000... (401 digits)"), (Decimal("1e309"), "Decimal('1E+309')"),
           (True, "True"), (math.nan, "nan"), (math.inf, "inf"), ("3", "'3'")]
WHOLES = [(np.int64(3), 3), (Decimal("3"), 3), (Fraction(6, 2), 3), (np.uint8(3), 3)]
NOT_WHOLE = [*REFUSED, (Decimal("2.5"), "Decimal('2.5')"), (Fraction(1, 3), "Fraction(1, 3)"),
             (np.float32(2.5), "np.float32(2.5)")]


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text and "Traceback" not in text
    return text


@pytest.mark.parametrize("key", ["shutter", "fps", "duration", "max_coc_px"])
@pytest.mark.parametrize("value, want", FLOATS)
def test_a_float_setting_takes_any_real_number_as_a_float(key, value, want):
    config = RenderConfig(**{key: value})
    got = getattr(config, key)
    assert type(got) is float and got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("value, want", FLOATS)
def test_audio_offset_takes_any_real_number_as_a_float(value, want):
    got = RenderConfig(audio="music.wav", audio_offset=value).audio_offset
    assert type(got) is float and got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("key, allowed", [
    ("shutter", " must be a finite number > 0 and <= 5760"),
    ("fps", " must be a finite number >= 0.001 and <= 1000"),
    ("duration", " must be a finite number > 0"),
    ("audio_offset", " must be a finite number of seconds (where in the sound the video "
     "starts; < 0: silence first)")])
@pytest.mark.parametrize("value, said", REFUSED)
def test_a_float_setting_refuses_in_one_line(key, allowed, value, said):
    with pytest.raises(ConfigError) as e:
        RenderConfig(**{key: value, "audio": "music.wav"})
    assert one_line(e.value) == f"{key}={said}{allowed}"


@pytest.mark.parametrize("key, allowed", [
    ("samples", " must be an integer from 1 to 4096 or 'auto'"),
    ("seed", f" must be an integer from 0 to {2**63 - 1}"),
    ("granularity", " must be an integer from 1 to 1048576")])
@pytest.mark.parametrize("value, said", NOT_WHOLE)
def test_a_whole_setting_refuses_in_one_line(key, allowed, value, said):
    with pytest.raises(ConfigError) as e:
        RenderConfig(**{key: value})
    assert one_line(e.value) == f"{key}={said}{allowed}"


@pytest.mark.parametrize("key", ["samples", "seed", "granularity", "max_in_flight"])
@pytest.mark.parametrize("value, want", WHOLES)
def test_a_whole_setting_takes_a_whole_number_of_any_kind_as_an_int(key, value, want):
    got = getattr(RenderConfig(**{key: value}), key)
    assert type(got) is int and got == want


@pytest.mark.parametrize("key", ["shutter", "fps", "audio_offset"])
@pytest.mark.parametrize("value, said", REFUSED[:2] + REFUSED[4:5])
def test_a_calls_keyword_is_refused_in_one_line(tmp_path, key, value, said):
    out = tmp_path / "x.mp4"
    with pytest.raises(hf.InputError) as e:
        hf.render(BAR, out, size=(16, 8), audio=str(tmp_path / "a.wav"), **{key: value})
    assert one_line(e.value).startswith(f"{key}={said} must be a finite number")
    assert not out.exists()


@pytest.mark.usefixtures("gl_context")
def test_a_calls_decimal_and_fraction_are_its_floats():
    """hf.still's t, shutter and fps as a Decimal or Fraction draw what their floats draw
    (t=Decimal('0.01') was refused as "not a time"; shutter=Decimal('270') as no number)."""
    still = {"size": (64, 8), "samples": Decimal(4)}  # (the bar at x = 26, 600 px/s)
    want = hf.still(BAR, t=0.01, shutter=270, fps=24, **still)
    assert 0 < want.max() < 255 and (want[0, :, 0] > 0).sum() > 8  # (blurred over > 8 px)
    for t, shutter, fps in ((Decimal("0.01"), Decimal("270"), Fraction(24)),
                            (Fraction(1, 100), Fraction(540, 2), Decimal("24.0"))):
        np.testing.assert_array_equal(hf.still(BAR, t=t, shutter=shutter, fps=fps, **still),
                                      want)


@pytest.mark.parametrize("t, said, kind", [
    (10**400, "100000... (401 digits)", hf.InputError), (Decimal("1e309"), "Decimal('1E+309')",
                                                         hf.InputError),
    (True, "True", hf.InputTypeError), ("3", "'3'", hf.InputTypeError)])
def test_a_stills_time_past_floats_is_one_line(t, said, kind):
    with pytest.raises(kind) as e:
        hf.still(BAR, t=t, size=(16, 8))
    assert one_line(e.value) == f"t={said}: not a time (give seconds, a finite number >= 0)"


@pytest.mark.parametrize("key", ["depth_scale", "input_fps"])
@pytest.mark.parametrize("value, want", FLOATS)
def test_fx_float_settings_take_any_real_number_as_a_float(key, value, want):
    got = getattr(FxSettings(**{key: value}), key)
    assert type(got) is float and got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("key, head, allowed", [
    ("depth_scale", "--depth-scale", " must be a finite number > 0"),
    ("input_fps", "--fps", ": the output's rate (--fps / --stride 1) must be from 0.001 to "
     "1000 fps")])
@pytest.mark.parametrize("value, said", [
    (10**400, "100000... (401 digits)"), (Decimal("1e309"), "1E+309"), (True, "True"),
    (math.nan, "nan"), (math.inf, "inf")])
def test_fx_float_settings_refuse_in_one_line(key, head, allowed, value, said):
    with pytest.raises(ConfigError) as e:
        FxSettings(**{key: value})
    assert one_line(e.value) == f"{head} {said}{allowed}"


@pytest.mark.parametrize("key", ["window", "stride", "workers"])
@pytest.mark.parametrize("value, want", WHOLES)
def test_fx_whole_settings_take_a_whole_number_of_any_kind_as_an_int(key, value, want):
    got = getattr(FxSettings(**{key: value}), key)
    assert type(got) is int and got == want


@pytest.mark.parametrize("value, said", [
    (Decimal("2.5"), "2.5"), (Fraction(1, 3), "1/3"), (np.float32(2.5), "2.5"), (True, "True"),
    (math.inf, "inf"), ("3", "3")])
def test_fx_window_refuses_in_one_line(value, said):
    with pytest.raises(ConfigError) as e:
        FxSettings(window=value)
    assert one_line(e.value) == (f"--motion-blur {said} must be a whole number of frames >= 1 "
                                 "(the window)")


BIG = "1" + "0" * 400  # 10**400 as TOML writes it


@pytest.mark.parametrize("key, allowed", [
    ("shutter", "must be a finite number > 0 and <= 5760"),
    ("fps", "must be a finite number >= 0.001 and <= 1000"),
    ("samples", "must be an integer from 1 to 4096 or 'auto'")])
def test_a_project_files_number_past_floats_is_one_line(tmp_path, monkeypatch, key, allowed):
    from hfrender.engine.settings import render_config

    monkeypatch.chdir(tmp_path)
    (tmp_path / "hfrender.toml").write_text(f"[render]\n{key} = {BIG}\n")
    with pytest.raises(ConfigError) as e:
        render_config({}, "render")
    assert one_line(e.value).endswith(f"hfrender.toml: [render] {key} = 100000... (401 digits) "
                                      f"{allowed}")


@pytest.mark.parametrize("job, said", [
    ('scene = "bar.frag"\noutput = "o.mp4"\nshutter', "shutter = 100000... (401 digits) must "
     "be a finite number > 0 and <= 5760"),
    ('scene = "bar.frag"\noutput = "o.mp4"\naudio = "m.wav"\naudio-offset', "audio-offset = "
     "100000... (401 digits) must be a finite number of seconds (where in the sound the video "
     "starts; < 0: silence first)"),
    ('input = "clip.mp4"\noutput = "o.mp4"\ndepth = "d.exr"\nfocus-distance = 2\nf-stop = 2\n'
     'depth-scale', "depth-scale = 100000... (401 digits) must be a finite number > 0")])
def test_a_jobs_files_number_past_floats_is_one_line(tmp_path, job, said):
    from hfrender.engine.batch import load_jobs

    (tmp_path / "bar.frag").write_text(Path(BAR).read_text())
    (tmp_path / "clip.mp4").write_bytes(b"")  # (its settings are read before it)
    (tmp_path / "jobs.toml").write_text(f'[[job]]\nname = "a"\n{job} = {BIG}\n')
    with pytest.raises(hf.InputError) as e:
        load_jobs(tmp_path / "jobs.toml", {})
    assert one_line(e.value) == f"{tmp_path / 'jobs.toml'}: job 'a': {said}"


@pytest.mark.parametrize("value, whole, as_int", [
    (3, True, 3), (np.int64(3), True, 3), (np.uint8(200), True, 200), (10**400, True, 10**400),
    (True, False, None), (np.True_, False, None), (3.0, False, None),
    (np.float32(3), False, None), (Decimal(3), False, 3), (Decimal("3.000"), False, 3),
    (Fraction(6, 2), False, 3), (Decimal("2.5"), False, None), (Fraction(1, 3), False, None),
    (Decimal("NaN"), False, None), (Decimal("-Infinity"), False, None), ("3", False, None),
    (None, False, None)])
def test_one_rule_for_a_whole_number(value, whole, as_int):
    """whole_number: an integer's type (the package's ~12 checks, was each by hand);
    as_whole: a setting's count, a whole Fraction or Decimal too, as an int."""
    from hfrender.numeric import as_whole, whole_number

    assert whole_number(value) is whole
    got = as_whole(value)
    assert got == as_int and (got is None or type(got) is int)
