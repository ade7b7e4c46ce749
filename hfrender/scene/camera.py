"""The camera: where it is, where it looks, and its physical lens.

Matrices are NumPy row-major 4x4 (transpose them for GL). World units are metres, y up;
the camera looks down its -z axis, as in OpenGL.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.errors import InputError
from hfrender.optics import Lens, check_blades
from hfrender.scene import checks
from hfrender.scene.drawable import in_floats, past_floats

SENSOR_FITS = ("auto", "horizontal", "vertical")




FAR_PAST_NEAR = 1e4  # far / near at least, following a file with no zfar (Blender's 0.1 m
# to 1 km): its znear scaled with a large Mesh past the camera's far

PINHOLE_F_STOP = 1e12  # a lens this closed blurs nothing: its disk is one pixel at any depth


@dataclass
class Camera(checks.Checked):
    """A perspective (or orthographic) camera with a physical lens.

    Defaults follow Blender's camera: 50 mm lens on a 36 mm sensor. ``f_stop=None`` is a
    pinhole (everything sharp); set it (and ``focus_distance``, metres along the view axis,
    or ``math.inf``) for depth of field. ``aperture_blades`` 0 gives round bokeh, 3 or more
    a polygon.

    ``sensor_fit`` is Blender's: ``"auto"`` fits ``sensor_width_mm`` to the longer side of
    the picture, ``"horizontal"`` to its width, ``"vertical"`` fits ``sensor_height_mm``
    to its height (perspective only; ``ortho_height`` is always the vertical extent).

    Values are checked when set (one line naming the value), and so are names:
    ``camera.fstop = 1.4`` raises, suggesting ``f_stop``.
    """

    position: tuple = (0.0, 0.0, 5.0)
    target: tuple = (0.0, 0.0, 0.0)
    up: tuple = (0.0, 1.0, 0.0)
    focal_length_mm: float = 50.0
    sensor_width_mm: float = 36.0
    sensor_height_mm: float = 24.0  # used by sensor_fit="vertical" only, as in Blender
    sensor_fit: str = "auto"
    f_stop: float | None = None
    focus_distance: float = 10.0
    aperture_blades: int = 0
    orthographic: bool = False
    ortho_height: float = 4.0  # world units seen vertically, orthographic only
    near: float = 0.05
    far: float = 1000.0

    def _label(self, name: str) -> str:
        return f"camera.{name}"

    @classmethod
    def value_checks(cls) -> dict:
        return _CHECKS

    def __setattr__(self, name: str, value: object) -> None:
        if name == "target":  # set anew: no longer where a look_at call put it
            object.__setattr__(self, "_aimed_at", None)
        if name == "far":  # set anew: its own, no longer one follow raised
            self.__dict__.pop("_own_far", None)
        super().__setattr__(name, value)
        if name in _LENS_NAMES + ("near", "far"):  # where, for the lens's error (a distance
            # within the focal length is refused only when the lens is made) and the range's
            set_at = self.__dict__.setdefault("_set_at", {})
            set_at.pop(name, None)  # the last set last
            set_at[name] = checks.caller_line()

    def look_at(self, target: tuple) -> None:
        self.target = target
        # where it was asked, for the error if it looks nowhere
        object.__setattr__(self, "_aimed_at", checks.caller_line())

    def follow(self, shot: Any, name: str | None = None, aspect: float | None = None) -> None:
        """Put this camera at the glTF camera ``name`` (None: the file's first) of the Mesh
        ``shot`` at its ``time`` (:meth:`~hfrender.scene.meshes.Mesh.camera_at`): its
        place, the way it looks, its up, ``near`` and ``far`` (the file's; no ``zfar``: this
        camera's, at least :data:`FAR_PAST_NEAR` ``near``), and its lens: orthographic
        with the ``ortho_height`` Blender sees in a picture of ``aspect`` (its
        ``ortho_scale`` across the longer side: ``CameraPose.ortho_height_at``), or the
        focal length that sees its vertical field of view on this sensor
        (:meth:`focal_length_for`) in a picture of ``aspect`` (width / height; None: the
        file's, ``aspectRatio`` or xmag / ymag, Blender's render size, else 16:9). The
        sensor, f-stop and focus stay this camera's."""
        if not callable(getattr(shot, "camera_at", None)):
            raise InputError(f"camera.follow({checks.shown(shot)}): give the Mesh of a glTF "
                             "file with a camera, e.g. hf.Mesh.load('shot.glb')")
        if aspect is not None:
            checks.finite("camera.follow aspect", aspect, above=0.0,
                          meaning="the picture's width / height")
        pose = shot.camera_at(name)
        self.position, self.target, self.up = pose.position, pose.target, pose.up
        self.orthographic = pose.orthographic
        if pose.orthographic:
            self.ortho_height = pose.ortho_height_at(aspect)
        else:
            self.focal_length_mm = self.focal_length_for(
                pose.yfov, aspect or pose.aspect_ratio or 16 / 9)
        own = self.__dict__.get("_own_far", self.far)  # (the far before follow raised it)
        self.near = pose.near
        # no zfar (infinite): this camera's far, at least FAR_PAST_NEAR past the near
        # scaled with the Mesh (was: a Mesh scaled 20000, near 2000 past far 1000, refused)
        self.far = max(own, pose.near * FAR_PAST_NEAR) if pose.far is None else pose.far
        if pose.far is None:
            object.__setattr__(self, "_own_far", own)

    def focal_length_for(self, yfov: float, aspect: float) -> float:
        """The focal length (mm) that sees ``yfov`` radians from the picture's top to its
        bottom on this sensor, as ``sensor_fit`` fits it to a picture of ``aspect`` = width
        / height (Blender's 50 mm on 36 mm, 16:9: a yfov of 2 atan(36 / (16/9) / 2 / 50))."""
        side, size = self.sensor_fitted(aspect)
        height_mm = size if side == "vertical" else size / aspect
        return height_mm / 2 / math.tan(yfov / 2)

    @property
    def has_dof(self) -> bool:
        return self.f_stop is not None and not self.orthographic

    def sensor_fitted(self, aspect: float) -> tuple[str, float]:
        """(the side the sensor fits, ``"horizontal"`` or ``"vertical"``; the sensor's size
        along it in mm) for a picture of ``aspect`` = width / height, as Blender does."""
        if self.sensor_fit == "auto":
            return ("horizontal" if aspect >= 1 else "vertical"), self.sensor_width_mm
        if self.sensor_fit == "horizontal":
            return "horizontal", self.sensor_width_mm
        return "vertical", self.sensor_height_mm

    def picture_width_mm(self, aspect: float) -> float:
        """Width (mm) of the part of the sensor that the picture covers."""
        side, size = self.sensor_fitted(aspect)
        return size if side == "horizontal" else size * aspect

    def lens(self, max_coc_px: float | None = None, aspect: float | None = None,
             pinhole: bool = False) -> Lens:
        """The thin lens of this camera (for depth-of-field fusion).

        ``aspect`` is the picture's width / height: the lens's ``sensor_width_mm`` is then
        the width the picture covers (:meth:`picture_width_mm`), so that its circles of
        confusion in pixels agree with :meth:`projection` for every ``sensor_fit``.
        ``None`` takes the sensor width as the picture's width (right for a landscape
        picture with ``"auto"`` or ``"horizontal"``).
        """
        if self.f_stop is None and not pinhole:
            raise InputError("camera.f_stop is None (a pinhole): set an f-stop for depth of field")
        width_mm = self.sensor_width_mm if aspect is None else self.picture_width_mm(aspect)
        f_stop = PINHOLE_F_STOP if self.f_stop is None else self.f_stop  # (``pinhole``: a
        # sub-frame of a camera that drops its f-stop: everything sharp, as with lens; its
        # focus then means nothing: at infinity, whatever focus_distance holds)
        focus = math.inf if self.f_stop is None else self.focus_distance
        try:
            return Lens(focus, f_stop, self.focal_length_mm, width_mm,
                        max_coc_px, self.aperture_blades)
        except InputError as exc:  # named as the camera's, at the line that set the value
            name = str(exc).split("=", 1)[0]
            if name not in _LENS_NAMES:
                raise
            told = type(exc)(f"camera.{exc}")
            told.where = self.__dict__.get("_set_at", {}).get(name)
            raise told from None

    def basis(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(right, up, forward) unit vectors in world space.

        Looking straight along ``up`` takes the up of a camera tilted there from looking
        down -z: -z for a shot straight down, +z straight up (then +x, were that parallel
        too), so that a tilt ending at the vertical does not turn the picture over.

        Kept while position, target and up are the very tuples it was made from (each
        set anew makes a new one; kept alive here, so their ids stay theirs): a sub-frame's
        draw asks three times (was 0.2 ms each on 2 cores, NumPy's cross and norm on 3
        numbers); copies, so that a caller may change them.
        """
        key = (self.position, self.target, self.up)
        memo = self.__dict__.get("_basis_memo")
        if memo is None or any(a is not b for a, b in zip(memo[0], key, strict=True)):
            memo = (key, self._basis())
            object.__setattr__(self, "_basis_memo", memo)
        right, up, fwd = memo[1]
        return right.copy(), up.copy(), fwd.copy()

    def _basis(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        pos = np.asarray(self.position, np.float64)
        fwd = np.asarray(self.target, np.float64) - pos
        length = float(np.linalg.norm(fwd))
        if not length > 0:
            aimed = getattr(self, "_aimed_at", None)
            raise InputError(
                f"camera: position {tuple(self.position)} and look_at target "
                f"{tuple(self.target)} coincide: it looks nowhere (set the position before "
                f"looking at a point away from it"
                + (f"; look_at was called at {Path(aimed).name})" if aimed else ")"))
        fwd = fwd / length
        asked = np.asarray(self.up, np.float64)
        asked = asked / np.abs(asked).max()  # (non-zero, as set) of length 1 to sqrt(3)
        toward = 1.0 if float(fwd @ asked) >= 0 else -1.0  # looking along up, or against it
        for up in (asked, np.array([0.0, 0.0, toward]), np.array([1.0, 0.0, 0.0])):
            side = np.cross(fwd, up)
            if np.linalg.norm(side) > 1e-9:
                right = side / np.linalg.norm(side)
                return right, np.cross(right, fwd), fwd
        raise InputError("camera: up is parallel to the view direction")

    def view_matrix(self, lens_offset_m: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
        """World -> camera; the eye moved by ``lens_offset_m`` across the aperture."""
        right, up, fwd = self.basis()
        eye = np.asarray(self.position, np.float64)
        eye = eye + right * lens_offset_m[0] + up * lens_offset_m[1]
        m = np.eye(4)
        m[0, :3], m[1, :3], m[2, :3] = right, up, -fwd
        m[:3, 3] = -m[:3, :3] @ eye
        return m

    def aperture_radius_m(self) -> float:
        """Radius of the eye's movement that reproduces the thin-lens circle of confusion.

        The pinhole projection images the focus plane at the focal length f, while a real
        lens focused at S1 sits at f * S1 / (S1 - f) from the sensor; scaling the aperture
        by S1 / (S1 - f) makes the blur equal the thin-lens formula exactly.
        """
        if not self.has_dof:
            return 0.0
        f = self.focal_length_mm / 1000.0
        s = self.focus_distance  # at infinity, s / (s - f) is 1
        return f / self.f_stop / 2.0 * (1.0 if math.isinf(s) else s / (s - f))

    def projection(self, aspect: float, lens_offset_m: tuple[float, float] = (0.0, 0.0),
                   jitter_ndc: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
        """Camera -> clip space, y flipped so that GL's row 0 is the image's top row.

        With a lens offset the frustum is sheared so that the focus plane stays put (the
        accumulation-buffer technique); ``jitter_ndc`` shifts the image by a sub-pixel.
        """
        n, f = self.near, self.far
        if self.orthographic:
            half_h = self.ortho_height / 2
            half_w = half_h * aspect
            p = np.diag([1 / half_w, 1 / half_h, -2 / (f - n), 1.0])
            p[2, 3] = -(f + n) / (f - n)
            p[0, 3], p[1, 3] = jitter_ndc
        else:
            side, size = self.sensor_fitted(aspect)
            if side == "horizontal":
                half_w = n * size / 2 / self.focal_length_mm
                half_h = half_w / aspect
            else:
                half_h = n * size / 2 / self.focal_length_mm
                half_w = half_h * aspect
            shift_x = -lens_offset_m[0] * n / self.focus_distance + jitter_ndc[0] * half_w
            shift_y = -lens_offset_m[1] * n / self.focus_distance + jitter_ndc[1] * half_h
            left, right = -half_w + shift_x, half_w + shift_x
            bottom, top = -half_h + shift_y, half_h + shift_y
            p = np.zeros((4, 4))
            p[0, 0] = 2 * n / (right - left)
            p[0, 2] = (right + left) / (right - left)
            p[1, 1] = 2 * n / (top - bottom)
            p[1, 2] = (top + bottom) / (top - bottom)
            p[2, 2] = -(f + n) / (f - n)
            p[2, 3] = -2 * f * n / (f - n)
            p[3, 2] = -1.0
        p[1] *= -1.0  # flip y: the first row GL writes is the top of the picture
        return p

    def validate(self) -> None:
        """Check the camera: one clear line per bad value (run at every sub-frame)."""
        for name in ("focal_length_mm", "sensor_width_mm", "sensor_height_mm", "near", "far",
                     "ortho_height"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and in_floats(v) and v > 0):
                raise InputError(f"camera.{name}={checks.shown(v)} must be a number > 0"
                                 f"{past_floats(v)}")
        if not self.near < self.far:  # the depth range drawn: it was drawn upside down
            told = InputError(f"camera.near={self.near:g} must be less than camera.far="
                              f"{self.far:g}: what is drawn lies between them")
            set_at = [at for n, at in self.__dict__.get("_set_at", {}).items()
                      if n in ("near", "far")]
            told.where = set_at[-1] if set_at else None  # the line that set the later one
            raise told
        if self.has_dof:
            self.lens()  # validates f_stop and focus_distance
        _blades("camera.aperture_blades", self.aperture_blades)
        checks.choice("camera.sensor_fit", self.sensor_fit, SENSOR_FITS)


_LENS_NAMES = ("focus_distance", "focal_length_mm", "f_stop")  # what a lens is made of


def _blades(what: str, value: object) -> int:
    return check_blades(what, checks.integer(what, value))


def _f_stop(what: str, value: object) -> float | None:
    if value is None:
        return None
    if not (checks.real(value) and in_floats(value) and value > 0):
        raise InputError(f"{what}={checks.shown(value)} must be None (a pinhole) or a finite "
                         f"number > 0{past_floats(value)}")
    return float(value)


def _positive(what: str, value: object) -> float:
    return checks.finite(what, value, above=0.0)


def _distance(what: str, value: object) -> float:
    """A focus distance: metres > 0, or inf (focused at infinity, as a lens can be)."""
    if checks.real(value) and value == math.inf:
        return math.inf
    if not (checks.real(value) and in_floats(value) and value > 0):
        raise InputError(f"{what}={checks.shown(value)} must be a distance > 0 in metres, or "
                         f"inf{past_floats(value)}")
    return float(value)


def _up(what: str, value: object) -> tuple[float, ...]:
    """An up direction: any length but 0 (was replaced, unsaid, by another)."""
    up = checks.vector3(what, value)
    if not any(up):
        raise InputError(f"{what}={checks.shown(value)} must be a non-zero vector (x, y, z): "
                         "the way the top of the picture points")
    return up


_CHECKS = {
    "position": lambda what, v: checks.vector3(what, v, "(x, y, z) in metres"),
    "target": lambda what, v: checks.vector3(what, v, "(x, y, z) in metres"),
    "up": _up,
    "focal_length_mm": _positive,
    "sensor_width_mm": _positive,
    "sensor_height_mm": _positive,
    "sensor_fit": lambda what, v: checks.choice(what, v, SENSOR_FITS),
    "f_stop": _f_stop,
    "focus_distance": _distance,
    "aperture_blades": _blades,
    "orthographic": checks.flag,
    "ortho_height": _positive,
    "near": _positive,
    "far": _positive,
}
