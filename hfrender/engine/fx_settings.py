"""The settings of an fx job: one frozen dataclass, validated when built (for library
callers as for the CLI, with the CLI's one-line messages)."""

from __future__ import annotations

import math
import shlex
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace

import numpy as np

from hfrender.backends import CHOICES
from hfrender.config import MAX_FPS, MIN_FPS, ConfigError, check_codec_name
from hfrender.disparity import (
    Disparity,
    check_kind,
    check_options,
    stand_in,
)
from hfrender.errors import FLAG, about, as_typed
from hfrender.io.depth_fit import RESIZES
from hfrender.io.encoding import Encoding
from hfrender.lens_args import focus_at, focus_each, focus_pixel, one_focus, pixel_inside
from hfrender.numeric import (
    a_number,
    as_whole,
    finite_float,
    number_said,
    real_number,
    whole_number,
)
from hfrender.optics import Lens, check_blades, check_focal_length
from hfrender.shutter_curve import CURVES, SHUTTER, vector_max_length, vector_shutter

LENS_OPTIONS = ("focus_distance", "f_stop", "focal_length_mm", "sensor_width_mm", "max_coc_px",
                "aperture_blades")
# the options of a depth pass (of no use without one), in the order a message lists them
DEPTH_OPTIONS = (*LENS_OPTIONS, "depth_scale", "depth_zero_is_sky", "focus_pixel",
                 "depth_resize", "dof_method", "depth_range", "depth_kind", "focus_disparity",
                 "max_blur")


def _whole(value: object, low: int) -> bool:
    """A whole number of any kind (:func:`~hfrender.numeric.as_whole`) >= ``low``."""
    whole = as_whole(value)
    return whole is not None and whole >= low


def _positive(value: object) -> bool:
    """A finite real number > 0 (:func:`~hfrender.numeric.finite_float`: 10**400 none)."""
    as_float = finite_float(value)
    return as_float is not None and as_float > 0


def _said(value: object) -> str:
    """A value as a command line types it: ``90`` for 90.0, ``x`` for "x", ``''`` for ""
    (was: nothing, unseen), 10**400 by its length (was its 401 digits)."""
    return f"{value:g}" if isinstance(value, float) else shlex.quote(value) \
        if isinstance(value, str) else _text(value)


def _text(value: object) -> str:
    """``str(value)``; an int past a float's range by its length (``100000... (401
    digits)``: :func:`~hfrender.numeric.number_said`; was its 401 digits)."""
    return number_said(value) if whole_number(value) and not real_number(value) else str(value)


def parse_range(text: str, name: str) -> tuple[float, float]:
    """``NEAR,FAR`` (the option ``name``'s value, metres) as two numbers."""
    parts = str(text).split(",")
    try:
        near, far = (float(v) for v in parts)
    except ValueError:
        raise ConfigError(f"{name} {text!r}: give NEAR,FAR, the metres a depth pass normalised "
                          "to 0..1 maps its 0 and its 1 to (e.g. 0.5,20)") from None
    return near, far


def depth_lens(o: dict, name: Callable[[str], str]) -> Lens:
    """The lens of fx's depth-of-field options ``o`` (``focus_distance`` or
    ``focus_pixel``, ``f_stop`` and :data:`LENS_OPTIONS`; None: not given), for the command
    line and a batch job alike (a disparity map's: :func:`check_options`); ``name``: an
    option as their messages name it. With a focus pixel, its focus distance is each
    frame's own (:meth:`FxSettings.lenses`)."""
    kind = "distance" if o.get("depth_kind") is None else o["depth_kind"]
    check_kind(kind, o, name)
    if kind == "disparity":  # the lens only scales its stand-in metres: --max-blur's
        check_options({**o, "depth": o.get("depth")}, name)  # (a job's: was said as flags)
        return stand_in(o.get("max_coc_px"), check_blades("aperture_blades",
                                                          o.get("aperture_blades") or 0))
    focus, pixel = o.get("focus_distance"), o.get("focus_pixel")
    one_focus(focus, pixel, name, ConfigError)
    wanted = ((f"{name('focus_distance')} (or {name('focus_pixel')} X,Y)",
               focus if pixel is None else pixel), (name("f_stop"), o.get("f_stop")))
    missing = [what for what, value in wanted if value is None]
    if missing:
        raise ConfigError(f"{name('depth')} needs {' and '.join(missing)}")
    given = {k: o.get(k) for k in LENS_OPTIONS if o.get(k) is not None}
    focal_under(focus if pixel is None else None, given.get("focal_length_mm"), name)
    # a bad value is the library's (f_stop=0.0), named as given by the caller's
    # errors.as_given: the flag as typed (--f-stop 0), the file's key (f-stop = 0)
    blades = check_blades("aperture_blades", given.pop("aperture_blades", 0))
    check_focal_length(given.get("focal_length_mm"))  # (the flag's cap: not a camera's)
    return Lens(**{"focal_length_mm": 50.0, "sensor_width_mm": 36.0, **given,
                   "focus_distance": math.inf if focus is None else focus,
                   "aperture_blades": blades})


def focal_under(focus: object, focal: object, name: Callable[[str], str]) -> None:
    """A focal length given that the focus distance, right for the default 50 mm lens, is
    not past: the focal length's fault (was: ``--focal-length-mm 1e12`` blamed on
    ``--focus-distance 2``); fx's and a batch's lens options alike (was: "at most 2000 mm",
    though 2000 is refused)."""
    if not (_positive(focus) and _positive(focal) and 0.05 < float(focus) <= float(focal) / 1000):
        return
    raise about(ConfigError, "focal_length_mm", focal, f" must be shorter than the focus "
                f"distance ({float(focus):g} m): under {float(focus) * 1000:g} mm",
                head=f"{name('focal_length_mm')} {_said(focal)}")


def check_needs(o: dict, name: Callable[[str], str]) -> None:
    """What one option needs of another, for the command line and a jobs file alike: a
    depth pass's zeros as sky, resize and range their ``depth``, ``shutter`` and
    ``max_length`` their ``vectors``, and ``vectors`` none of the other blurs
    (``motion_blur``, ``stride``, ``depth``); ``o``: the options by their long names
    (None: not given), ``name``: an option as the messages name it (``--depth``,
    ``depth``: was a flag in a jobs file too)."""
    for key in ("depth_zero_is_sky", "depth_resize", "depth_range"):
        if o.get(key) not in (None, False) and o.get("depth") is None:
            raise ConfigError(f"{name(key)} needs {name('depth')}")
    blend, stride = name("motion_blur"), name("stride")
    for key, why in (("shutter", f"); fx's frame-blending shutter is {blend} N and {stride} "
                      f"S, 360*N/S degrees ({blend} 4 and {stride} 8: 180)"),
                     ("max_length", ": the longest vector it takes)")):
        value = o.get(key)
        if value is not None and o.get("vectors") is None:  # (one wording: a flag, a key)
            raise about(ConfigError, key, value, f" applies only with {name('vectors')} "
                        f"(motion blur from motion vectors{why}", head=f"{name(key)} "
                        f"{_said(value)}")
    for key in ("motion_blur", "stride", "depth") if o.get("vectors") is not None else ():
        if o.get(key) is not None:
            raise ConfigError(f"{name('vectors')} and {name(key)}: give one ({name('vectors')} "
                              "blurs each frame along its own motion vectors, Z from their "
                              "files; the other in a run of its own)")


@dataclass(frozen=True)
class FxSettings:
    """What ``hfrender fx`` does to the footage.

    ``window`` frames per output frame, ``stride`` frames between windows, ``weights`` the
    shutter curve, ``linear_light`` False to blend code values as ``ffmpeg -vf tmix``;
    ``depth`` a depth pass (scaled to metres by ``depth_scale``, or ``depth_range`` (near,
    far): the metres of a pass normalised to 0..1; its zeros sky with ``depth_zero_is_sky``;
    of another size, scaled to the footage's by ``depth_resize``, "nearest" or "linear")
    and the ``lens`` that defocuses with it (``focus_pixel``: each frame's focus distance
    its depth at that pixel, instead of the lens's); ``input_fps`` the rate of a PNG
    sequence; ``workers`` fusion threads (``"auto"``: two for a depth of field on 2 or more
    cores, where two frames defocused at once take 0.8x the time of one after the other,
    else one); ``resume`` continues an interrupted run of the same settings.
    """

    window: int = 1
    stride: int = 1
    weights: str = "box"
    linear_light: bool = True
    depth: str | None = None
    depth_scale: float = 1.0
    lens: Lens | None = None
    backend: str | None = None  # None: HFRENDER_BACKEND, else auto
    codec: str | None = None
    input_fps: float | None = None  # for PNG sequences
    workers: int | str = "auto"
    resume: bool = False
    dof_method: str = "fast"  # or "exact": the gather (the reference)
    crf: int | None = None  # encoder settings (hfrender.io.encoding); None: the default
    preset: str | None = None
    bitrate: str | int | None = None
    pix_fmt: str | None = None  # the output's (the footage's is the manifest's input_pix_fmt)
    depth_zero_is_sky: bool = False  # a depth of 0 (a sensor's "no reading") read as inf
    focus_pixel: tuple[int, int] | None = None  # (x, y): each frame focused on its depth there
    depth_resize: str | None = None  # a depth pass of another size: "nearest" or "linear"
    depth_range: tuple[float, float] | None = None  # (near, far): a normalised pass's 0 and 1
    depth_kind: str = "distance"  # or "disparity": a depth estimator's (hfrender.disparity)
    focus_disparity: float | None = None  # a disparity map's in focus (or focus_pixel's)
    max_blur: float | None = None  # a disparity map's largest blur, px across (its 1st frame)
    vectors: str | None = None  # motion-vector EXR frames: each frame blurred along its own
    shutter: float = SHUTTER  # --vectors' shutter, degrees centred on each frame
    max_length: float | None = None  # --vectors' longest vector, px a frame (None: no clamp)

    def __post_init__(self) -> None:
        Encoding.of(self)  # the encoder settings' form (the encoder's own: check_encoding)
        check_codec_name(self.codec)
        self._check_numbers()
        if self.weights not in CURVES:
            raise ConfigError(f"--weights {self.weights!r} must be one of {', '.join(CURVES)}")
        check_needs({"depth": self.depth, "depth_zero_is_sky": self.depth_zero_is_sky,
                     "depth_resize": self.depth_resize, "depth_range": self.depth_range,
                     "vectors": self.vectors, "motion_blur": None if self.window == 1 else
                     self.window, "stride": None if self.stride == 1 else self.stride,
                     "shutter": None if self.shutter == SHUTTER else self.shutter,
                     "max_length": self.max_length}, FLAG.name)
        self._check_depth_range()
        if self.depth_resize is not None and self.depth_resize not in RESIZES:
            raise ConfigError(f"--depth-resize {self.depth_resize!r} must be one of "
                              f"{', '.join(RESIZES)}")
        self._check_disparity()
        self._check_vectors()
        if (self.depth is None) != (self.lens is None):
            raise ConfigError("--depth needs --focus-distance and --f-stop (a lens), and a "
                              "lens needs --depth")
        if self.lens is not None and not isinstance(self.lens, Lens):
            raise ConfigError(f"lens={self.lens!r} must be an hfrender Lens")
        self._check_focus_pixel()
        if self.backend is not None and self.backend not in CHOICES:  # None: the
            # environment's, read where the backend is loaded (engine/fx.py)
            raise ConfigError(f"--backend {self.backend!r} must be one of {', '.join(CHOICES)}")
        if self.dof_method not in ("fast", "exact"):
            raise ConfigError(f"--dof-method {self.dof_method!r} must be one of fast, exact")
        if self.workers == "auto":
            from hfrender.engine.render_setup import usable_cores

            two = self.depth is not None and usable_cores() >= 2
            object.__setattr__(self, "workers", 2 if two else 1)
        if not (_whole(self.workers, 1) and as_whole(self.workers) <= 64):
            raise ConfigError(f"--workers {_said(self.workers)} must be an integer from 1 to 64")
        object.__setattr__(self, "workers", as_whole(self.workers))
        if not isinstance(self.linear_light, bool) or not isinstance(self.resume, bool):
            raise ConfigError("linear_light and resume must be True or False")

    def _check_numbers(self) -> None:
        """The window, stride, depth scale and input rate, each one line where refused and
        kept as an int or a float (a Decimal, Fraction or NumPy number taken, :mod:`hfrender.
        numeric`: was Decimal('2.5') refused, 10**400 an OverflowError traceback)."""
        for key, flag, window in (("window", "--motion-blur", " (the window)"),
                                  ("stride", "--stride", "")):
            value = getattr(self, key)
            if not _whole(value, 1):
                raise about(ConfigError, "motion_blur" if window else key, value, " must be a "
                            f"whole number of frames >= 1{window}",
                            head=as_typed(flag, _text(value)))
            object.__setattr__(self, key, as_whole(value))
        if not _positive(self.depth_scale):
            raise about(ConfigError, "depth_scale", self.depth_scale, " must be a finite "
                        "number > 0", head=f"--depth-scale {_said(self.depth_scale)}")
        object.__setattr__(self, "depth_scale", float(self.depth_scale))
        fps = self.input_fps
        if fps is not None and not (_positive(fps) and MIN_FPS <= fps / self.stride <= MAX_FPS):
            said = _said(fps) if a_number(fps) else repr(fps)
            raise about(ConfigError, "fps", said, (  # (a flag: as typed, --fps 1000000000000)
                f": the output's rate (--fps / --stride {self.stride}) must be from "
                f"{MIN_FPS:g} to {MAX_FPS:g} fps"), head=f"--fps {said}")
        if fps is not None:
            object.__setattr__(self, "input_fps", float(fps))

    def _check_depth_range(self) -> None:
        span = self.depth_range
        if span is None:
            return
        if not (isinstance(span, (tuple, list)) and len(span) == 2
                and all(_positive(v) for v in span)):
            raise about(ConfigError, "depth_range", span, ": give NEAR,FAR, two finite "
                        "distances in metres > 0 (the normalised pass's 0 and 1; FAR < NEAR "
                        "where white is near)", head=f"--depth-range {span!r}")
        if span[0] == span[1]:  # (was: taken, every pixel at that distance, unsaid)
            raise about(ConfigError, "depth_range", span, ": NEAR and FAR are the same "
                        f"distance, every pixel {span[0]:g} m whatever the pass says; give "
                        "the metres of its 0 and of its 1", head=f"--depth-range {span!r}")
        for flag, given in (("--depth-scale", self.depth_scale != 1.0),
                            ("--depth-zero-is-sky", self.depth_zero_is_sky)):
            if given:
                raise ConfigError(f"--depth-range and {flag}: give one (the range gives the "
                                  "normalised pass's metres, its 0 NEAR)")
        object.__setattr__(self, "depth_range", (float(span[0]), float(span[1])))

    def _check_vectors(self) -> None:
        """--vectors' shutter and max length (:mod:`hfrender.shutter_curve`'s
        :func:`vector_shutter`, :func:`vector_max_length`; :func:`check_needs`: alone of
        the ways to blur)."""
        if self.vectors is not None:
            vector_shutter(self.shutter, FLAG)
            object.__setattr__(self, "max_length", vector_max_length(self.max_length, FLAG))

    def _check_disparity(self) -> None:
        check_kind(self.depth_kind, vars(self), FLAG.name)
        if self.depth_kind == "distance":
            return
        blur, focus = check_options(vars(self), FLAG.name)  # (the library's, its names)
        object.__setattr__(self, "max_blur", blur)  # floats (a Fraction: was kept as
        object.__setattr__(self, "focus_disparity", focus)  # given, the manifest no JSON)
        if self.lens is None:
            object.__setattr__(self, "lens", stand_in())

    def disparity(self) -> Disparity | None:
        """How a disparity map is blurred (None: the depth is a distance)."""
        if self.depth_kind != "disparity" or self.lens is None:
            return None
        return Disparity(float(self.max_blur), self.focus_disparity, self.focus_pixel,
                         self.lens)

    def _check_focus_pixel(self) -> None:
        if self.focus_pixel is None:
            return
        pixel = focus_pixel(self.focus_pixel, FLAG)
        if self.lens is None:
            raise ConfigError("--focus-pixel needs --depth (and --f-stop)")
        object.__setattr__(self, "focus_pixel", pixel)

    def output_settings(self) -> dict:
        """What an output made with these settings depends on (a resumed run's manifest):
        all but ``workers`` and ``resume``; with ``focus_pixel``, the lens's focus distance
        is each frame's own, so its stand-in is left out (unset); so is a disparity map's,
        which its --max-blur, --focus-disparity and the map give (no flag: not to be named
        by a --resume refused); ``max_length`` unset too (a run from before --max-length
        goes on)."""
        fields = {k: v for k, v in asdict(self).items() if k not in ("workers", "resume")}
        if self.max_length is None:
            del fields["max_length"]
        if self.lens is not None and (self.focus_pixel is not None
                                      or self.depth_kind == "disparity"):
            fields["lens"]["focus_distance"] = None
        return fields

    def check_size(self, size: tuple[int, int]) -> None:
        """Refuse a ``focus_pixel`` outside footage of ``size`` (w, h)."""
        if self.focus_pixel is not None:
            pixel_inside(self.focus_pixel, size, FLAG)

    def lenses(self, depth: np.ndarray, first: int = 0) -> Lens | list[Lens] | None:
        """The lens of each frame of ``depth`` (N, H, W), footage frames ``first``... (below
        0: frame 0, standing in before the clip): the one lens, or with ``focus_pixel``
        each frame's focused at its depth there (autofocus on that point)."""
        if self.focus_pixel is None or self.lens is None:
            return self.lens
        return [self.lens_for(d, max(first + i, 0)) for i, d in enumerate(depth)]

    def lens_for(self, depth: np.ndarray, frame: int = 0) -> Lens:
        """The lens of one frame of depth (H, W), footage frame ``frame``: :meth:`lenses`'."""
        if self.focus_pixel is None:
            return self.lens
        return replace(self.lens, focus_distance=focus_at(
            self.focus_pixel, depth, self.lens.focal_length_mm, frame, FLAG, ConfigError))

    def check_focus(self, column: Callable[[int, int], np.ndarray] | None) -> None:
        """The depth pass's metres under ``focus_pixel`` in every frame (``column``, an
        array pass's: ``DepthPass.column``) checked at once, before a frame is written: the
        first within the focal length refused in :meth:`lens_for`'s line."""
        if self.focus_pixel is not None and self.lens is not None and column is not None:
            focus_each(self.focus_pixel, column(*self.focus_pixel),
                       self.lens.focal_length_mm, 0, FLAG, ConfigError)
