"""The effects library: arrays in, blurred arrays out.

``motion_blur`` and ``depth_of_field`` take frames from any tool (NumPy, or anything
speaking DLPack) and return the same kind of array with the same dtype (in this machine's
byte order, as NumPy's ufuncs give it: ``'>u2'`` frames give uint16). ``fuse`` is the
one-pass entry point over a :class:`HyperFrame` that the render loop uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hfrender import validate
from hfrender.backends import get_backend, load, resolve_name
from hfrender.backends.cpu.color import Transfer
from hfrender.disparity import inverse
from hfrender.dof_layers import check_method
from hfrender.errors import InputError, InputTypeError, shown
from hfrender.hyperframe.frame import HyperFrame
from hfrender.hyperframe.windows import WindowWeights
from hfrender.interop import native, not_numbers, to_array, to_numpy, unmasked
from hfrender.lens_args import depth_lenses, disparity_of, frame_lenses, one_numbers
from hfrender.optics import Lens
from hfrender.out_arrays import apart, check_out, into
from hfrender.shutter_curve import weights_of
from hfrender.straight_frames import straight_kept, to_premultiplied, to_straight


def motion_blur(frames: Any, window: int, *, stride: int | None = None,
                weights: str | np.ndarray = "box", linear_light: bool = True,
                backend: str | None = None, out: Any = None, premultiplied: bool = True) -> Any:
    """Blend sliding windows of frames into motion-blurred frames: ``out[k] = sum_j w[j] *
    frames[k * stride + j]`` for ``j < window``, ``(N - window) // stride + 1`` frames
    (``ffmpeg -vf tmix=frames=window`` gives N, its first ``window - 1`` with frame 0
    repeated; its frame ``k * stride + window - 1`` is ``out[k]``).

    Parameters
    ----------
    frames : (N, H, W, C) array, C in {1, 3, 4}, dtype uint8, uint16 or float32.
        Integer frames are sRGB code values, float32 frames are linear light.
    window : frames per output frame, 1 <= window <= N.
    stride : frames between the starts of consecutive windows (default: ``window``, i.e.
        a 360-degree shutter that turns N fps into N / window fps; 1 slides by one frame).
    weights : ``"box"``, ``"triangle"``, ``"gaussian"`` or ``window`` weights; normalised.
    linear_light : blend integer frames in linear light (decode sRGB, blend, encode);
        ``False`` blends code values, as ``ffmpeg -vf tmix`` does. Alpha is always linear.
        float32 frames are linear light either way: sRGB-encoded floats (torchvision's
        ``ToTensor``) go in as 16-bit codes, ``(x * 65535).round().astype(numpy.uint16)``,
        and come back as float32 by ``/ numpy.float32(65535)`` (``/ 65535``: float64).
    premultiplied : how RGBA frames carry alpha. ``True`` (default): colour is
        premultiplied (as hfrender renders it): every channel is blended alike, which is
        how light and coverage blend. ``False``: straight colour (as PNG files hold it):
        premultiplied in float32 (4x an 8-bit clip's memory, about 6x with the blend's
        working copies, and 3-14x the time) in the space it is blended in, and made
        straight again after: a fully transparent pixel's colour does not count (it comes
        back 0), and a still clip's other pixels come back as they were, faint ones too
        (float32 within an ulp: times alpha, divided again). Transparent red ``(255, 0, 0, 0)``
        blended 50/50 with opaque white gives ``(255, 188, 188, 128)`` as premultiplied
        values, ``(255, 255, 255, 128)`` with ``premultiplied=False``. Host arrays only.
    backend : ``"auto"`` (CUDA if it can run, else CPU), ``"cpu"``, ``"cuda"``; ``None``
        (default): ``HFRENDER_BACKEND``, else ``"auto"``.
    out : optional preallocated result, as NumPy's ``out=``: a writable C-contiguous array
        of the frames' dtype and shape ``(M, H, W, C)`` (NumPy for host frames; NumPy or
        CuPy for GPU frames). Streaming callers reuse one and allocate nothing per call.

    Returns
    -------
    The input's family and dtype (in this machine's byte order: ``'>u2'`` frames give
    uint16, as NumPy's ufuncs do), ``(M, H, W, C)``, rounded (``out`` itself when given).
    """
    arr, back, on_device = to_array(frames, "frames")
    validate.frames(arr)
    n = arr.shape[0]
    window = validate.window(window, n)
    stride = window if stride is None else validate.integer(stride, "stride", 1)
    w = weights_of(weights, window)
    linear_light = validate.flag(linear_light, "linear_light")
    straight = not validate.flag(premultiplied, "premultiplied")
    dtype = arr.dtype
    if straight:
        arr = to_premultiplied(arr, on_device, linear_light)
    if out is None:
        res = _backend(backend, on_device).motion_blur(arr, w, stride, linear_light)
        return back(to_straight(res, dtype, linear_light) if straight else res)
    check_out(out, ((n - window) // stride + 1,) + tuple(arr.shape[1:]), dtype, on_device)
    res = _backend(backend, on_device).motion_blur(
        arr, w, stride, linear_light, None if straight else apart(out, arr))
    return into(out, to_straight(res, dtype, linear_light) if straight else res)


def depth_of_field(frames: Any, depth: Any, *, focus_distance: float | None = None,
                   f_stop: float | None = None, focal_length_mm: float | None = None,
                   sensor_width_mm: float | None = None, max_coc_px: float | None = None,
                   aperture_blades: int = 0, linear_light: bool = True, backend: str | None =
                   None, method: str = "fast", premultiplied: bool = True, depth_kind: str =
                   "distance", focus_pixel: Any = None, focus_disparity: Any = None,
                   max_blur: Any = None) -> Any:
    """Thin-lens depth of field from a depth pass.

    Parameters
    ----------
    frames : (N, H, W, C) or (H, W, C) array (see :func:`motion_blur`).
    depth : (N, H, W) or (H, W) metres from the camera, ``inf`` sky (one (H, W) for all N
        frames of a locked-off shot). ``depth_kind="disparity"``: a depth estimator's inverse
        depth (near large; 0..1 if integer; <= 0 sky), focused by ``focus_pixel=(x, y)`` or
        ``focus_disparity``, ``max_blur`` px across at most on frame 0, then kept as scaled.
    focus_distance : metres to the plane in focus (> focal length; ``inf``: at infinity), or
        one for each of the N frames (a focus pull); or ``focus_pixel=(x, y)``: each frame
        focused at its own depth there (fx's --focus-pixel). Over 1.5x nearer than all of a
        frame's depth, or farther than all of one with no sky, is warned of (no pixel in
        focus: other units, most likely; not a depth of one plane: a plate, or sky).
    f_stop : f-number (> 0); lower is blurrier (as every one-number keyword: or one in an array).
    focal_length_mm, sensor_width_mm : the camera (Blender's 50 and 36).
    max_coc_px : cap on the circle of confusion's diameter in pixels (bounds the cost).
    aperture_blades : 0: round bokeh; 3 to 64: a polygon of blades (:class:`hfrender.optics.Lens`).
    linear_light, backend, premultiplied : as in :func:`motion_blur` (RGBA from a PNG
        file is straight: ``premultiplied=False``, or a transparent pixel's colour bleeds).
    method : ``"fast"`` (default: depth layers blurred by FFT, a cost that does not grow with
        the blur; 51-70 dB from the exact gather on ``benchmarks/dof.py``'s frame, 40 dB at
        least on the test scenes) or ``"exact"`` (the gather over every pixel of each circle
        of confusion: the reference, O(blur^2)). On a GPU ``"fast"`` gathers exactly where
        that is sooner (an H200: 1080p up to 70 px; ``cuda.dof.EXACT_TAPS_PER_SM``).

    Returns
    -------
    Array of the input's family, dtype (this machine's byte order) and shape.

    Notes
    -----
    Each pixel spreads its light over its circle of confusion (energy is conserved away from
    the borders). Depth-aware: an in-focus foreground stays sharp over a blurred background,
    and a defocused foreground spreads over a sharp background.
    """
    o = one_numbers(dict(locals()))  # the keywords, as given (np.array([1.4]): 1.4)
    arr, back, on_device = to_array(frames, "frames")
    validate.frames(arr, allow_single=True)
    single = arr.ndim == 3
    darr, spec = to_array(depth, "depth")[0], disparity_of(depth_kind, o)  # spec None: metres
    darr = validate.depth(inverse(darr) if spec else darr, arr.shape, "depth", True, bool(spec),
                          given=darr if spec else None)  # (a disparity named as given)
    arr, darr = (arr[None], darr[None]) if single else (arr, darr)
    linear_light = validate.flag(linear_light, "linear_light")
    method = check_method(method, "method")
    straight = not validate.flag(premultiplied, "premultiplied")
    src, arr = arr, to_premultiplied(arr, on_device, linear_light) if straight else arr
    fusion = _backend(backend, on_device)  # every argument checked before the lens's notes
    darr, lens = depth_lenses(spec, o, darr)
    out = fusion.depth_of_field(arr, darr, lens, linear_light, dof_method=method)
    out = straight_kept(out, arr, src, linear_light) if straight else out
    return back(out[0] if single else out)


def fuse(hyperframe: HyperFrame, weights: WindowWeights, *,
         lens: Lens | Sequence[Lens] | None = None, linear_light: bool = True,
         backend: str | None = None, out: np.ndarray | None = None, shutter: Any = None,
         dof_method: str = "fast") -> np.ndarray:
    """Turn one hyperframe's windows into output frames in one pass.

    ``out[k] = sum_i weights.rows[k, i] * f(frames[weights.starts[k] + i])`` where ``f``
    is the depth-aware thin-lens defocus of each sub-frame with its own depth when a
    ``lens`` is given (``--dof depth``), else identity; a sequence gives each frame its own
    lens (a focus pull). Indices count from the hyperframe's first frame, halo included.
    ``dof_method``: ``"fast"`` or ``"exact"``, as ``method`` of :func:`depth_of_field`.

    ``shutter`` ``(count, 2)``: when each window's shutter opens and closes (seconds, the
    clock of ``hyperframe.timestamps``). With it, and velocity and depth planes, the motion
    between sub-frames is reconstructed (``--reconstruct``: :mod:`.backends.cpu.reconstruct`).
    """
    if not isinstance(hyperframe, HyperFrame):  # (frames alone: motion_blur, depth_of_field)
        raise InputTypeError(f"hyperframe is {type(hyperframe).__name__}; fuse takes an "
                             "hf.HyperFrame (frames alone: hf.motion_blur, hf.depth_of_field)")
    if not isinstance(weights, WindowWeights):
        raise InputTypeError(f"weights is {type(weights).__name__}; fuse takes hf.WindowWeights "
                             "(e.g. hf.WindowWeights.sliding(np.ones(4) / 4, count, stride))")
    if getattr(hyperframe, "released", False):  # (was: fused the next one's frames)
        raise InputError("this hyperframe was released: its slot holds another's frames now; "
                         "fuse it before release()")
    # big-endian frames as their values, as motion_blur takes them (was: "dtype >u2; allowed:
    # uint8, uint16, float32"); each plane unmasked where it is read (was: read through a
    # mask, unsaid; with none masked, a MaskedArray to reconstruct; refused where unread)
    frames = validate.frames(native(unmasked(hyperframe.frames, "hyperframe.frames")),
                             "hyperframe.frames")
    linear_light = validate.flag(linear_light, "linear_light")  # (was: any value's truth)
    if weights.count and weights.frames_needed() > frames.shape[0]:
        raise InputError(
            f"weights reach frames [{int(weights.starts[0])}, {weights.frames_needed()}) but "
            f"the hyperframe holds {frames.shape[0]} frames"
        )
    if lens is not None:
        if hyperframe.depth is None:
            raise InputError("lens given but the hyperframe has no depth plane")
        lens = frame_lenses(lens, frames.shape[0])
    spans, velocity = (None, None) if shutter is None else \
        _motion_planes(hyperframe, weights, shutter)
    depth = None if lens is None and shutter is None else validate.depth(  # (was: unchecked
        unmasked(hyperframe.depth, "hyperframe.depth"), frames.shape, "hyperframe.depth")
    on_device = not isinstance(frames, np.ndarray)
    if out is not None:
        check_out(out, (weights.count,) + frames.shape[1:], frames.dtype, on_device)
    chosen = _backend(backend, on_device)
    dof_method = check_method(dof_method)
    target = None if out is None else apart(out, frames, depth, velocity)
    if shutter is None:
        res = chosen.fuse(frames, depth, weights, lens, linear_light, target,
                          dof_method=dof_method)
    else:
        res = chosen.reconstruct(frames, depth, velocity,
                                 np.asarray(hyperframe.timestamps, np.float64), weights,
                                 spans, lens, linear_light, target, dof_method=dof_method,
                                 shifts=_shifts(hyperframe))
    return into(out, res)


def _motion_planes(hyperframe: HyperFrame, weights: WindowWeights,
                   shutter: Any) -> tuple[np.ndarray, Any]:
    """The checked shutter spans and velocity plane of a reconstructing :func:`fuse`."""
    spans = validate.real_array(shutter, "shutter")
    if spans is None:  # (was NumPy's "could not convert string to float: 'abc'")
        raise InputTypeError(f"shutter={shown(shutter)} is no (open, close) times; expected "
                             f"({weights.count}, 2) seconds with close >= open")
    if spans.shape != (weights.count, 2) or not np.all(spans[:, 1] >= spans[:, 0]):
        raise InputError(f"shutter has shape {spans.shape}; expected ({weights.count}, 2) "
                         "(open, close) times with close >= open")
    if hyperframe.velocity is None or hyperframe.depth is None:
        raise InputError("shutter given (reconstruction) but the hyperframe has no "
                         f"{'velocity' if hyperframe.velocity is None else 'depth'} plane")
    shape = tuple(hyperframe.frames.shape[:3]) + (2,)
    if tuple(hyperframe.velocity.shape) != shape:
        got = tuple(hyperframe.velocity.shape)
        raise InputError(f"hyperframe.velocity has shape {got}; expected {shape}"
                         + validate.channels_last_hint(got, [shape], "hyperframe.velocity"))
    return spans, unmasked(hyperframe.velocity, "hyperframe.velocity")


def _shifts(hyperframe: HyperFrame) -> np.ndarray | None:
    """The hyperframe's checked ``shifts``: (N, 2) finite pixels (x, y down), or None (was:
    a wrong shape or a NaN an IndexError from deep in the reconstruction)."""
    if hyperframe.shifts is None:
        return None
    want = (hyperframe.frames.shape[0], 2)
    arr = validate.real_array(hyperframe.shifts, "hyperframe.shifts")
    if arr is None:
        raise InputError(not_numbers(
            hyperframe.shifts, "hyperframe.shifts", "pixels, x and y down, each frame's "
            "antialiasing offset moved its picture by", f"an array of shape {want}"))
    if arr.shape != want or not np.isfinite(arr).all():
        got = f"shape {arr.shape}" if arr.shape != want else "a NaN or inf"
        raise InputError(f"hyperframe.shifts has {got}; expected {want}: finite pixels (x, y "
                         "down) each frame's antialiasing offset moved its picture by")
    return arr


def _backend(name: str | None, on_device: bool) -> Any:
    """GPU arrays go to the CUDA backend; host arrays to the one named (auto: CUDA if usable)."""
    if on_device:
        if resolve_name(name) == "cpu":
            raise InputError("backend='cpu' takes host (NumPy) arrays; these frames are on "
                             "the GPU: use backend='cuda' or 'auto', or copy them to the host")
        return load("cuda")
    return get_backend(name)  # (the name as given: it tells HFRENDER_BACKEND's choice)


def to_linear(frames: Any) -> Any:
    """sRGB-encoded integer frames (any shape ending in C) -> float32 linear light, in the
    input's array family (a torch tensor gives a torch tensor).

    Alpha (channel 3 of 4) is scaled, not decoded; float32 input is returned as a copy, a
    NaN or inf refused as :func:`from_linear` refuses it.
    """
    arr, back = to_numpy(frames, "frames")
    _check_pixels(arr)
    if arr.dtype == np.float32:  # (was: given back, NaN and all)
        validate.finite(arr, "frames")
    return back(Transfer(arr.dtype, arr.shape[-1], True).decode(
        arr, np.empty(arr.shape, np.float32)))


def from_linear(linear: Any, dtype: Any = np.uint8) -> Any:
    """float32 linear light -> sRGB-encoded ``dtype`` (uint8 or uint16, in this machine's
    byte order: a big-endian ``'>u2'`` is one line saying so; NumPy's, its name, or torch's
    ``torch.uint16``), rounded to nearest, in the input's array family.

    Integer input is refused: it is sRGB code values already (:func:`to_linear` decodes
    it), and encoding it again would be silently wrong."""
    arr, back = to_numpy(linear, "linear")
    _check_pixels(arr, "linear", (np.dtype(np.float32),))
    validate.finite(arr, "linear")
    dt = validate.pixel_dtype(dtype, validate.DTYPES[:2])  # ('u9', None: said as given)
    src = np.array(arr, np.float32)  # the encoder clobbers its input
    return back(Transfer(dt, arr.shape[-1], True).encode(src, np.empty(arr.shape, dt)))


def _check_pixels(arr: np.ndarray, name: str = "frames",
                  dtypes: tuple[np.dtype, ...] = validate.DTYPES) -> None:
    if arr.ndim >= 1 and arr.size == 0 and arr.shape[-1] in validate.CHANNELS:
        raise InputError(f"{name} has shape {arr.shape}: no pixels (an empty array)")
    if arr.ndim < 1 or arr.size == 0 or arr.shape[-1] not in validate.CHANNELS:
        raise InputError(f"{name} has shape {arr.shape}; expected pixels with 1, 3 or 4 "
                         "channels last (a 1-D ramp of values: [..., None])")
    if arr.dtype not in dtypes:
        allowed = ", ".join(str(d) for d in dtypes)
        why = (" (integer frames are sRGB code values already; to_linear decodes them)"
               if arr.dtype.kind in "iub" and len(dtypes) == 1 else "")
        raise InputTypeError(f"{name} has dtype {arr.dtype}; allowed: {allowed}{why}"
                             f"{validate.convert_hint(arr.dtype, name)}")
