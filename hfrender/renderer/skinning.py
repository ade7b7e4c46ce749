"""Skinned and morphed parts of loaded models posed in the vertex shader (``mesh.vert``'s
``hf_pose``): a part's unposed vertices, their joints and weights uploaded once
(:class:`PartShape`), and at each draw its joints' matrices and their clip rates (a float
texture, a row a joint) and its morph weights and their rates (uniforms; the targets'
deltas a float texture uploaded once). The maths is :func:`~hfrender.scene.model_skins.
posed`'s, which stays the reference (``ModelDrawer.shader_posing`` False draws by it): the
targets first, then linear blend skinning, normals by the blend's cofactors, each
vertex's clip rate its joints' clip rates blended alike plus its weights' sweep.

Was: every skinned or morphed part posed in NumPy each sub-frame and its vertices written
again, about half a sub-frame at 50,000 vertices (``benchmarks/RESULTS.md``). A part of
more joints than a texture's rows (``GL_MAX_TEXTURE_SIZE``, 16,384 on llvmpipe), of more
than :data:`INFLUENCES` influences a vertex (``JOINTS_2`` on), of more than
:data:`MAX_TARGETS` morph targets, or of targets' deltas past a texture's size is
posed in NumPy as before (:func:`unfit` says which limit it passes; the renderer warns of it
once a model)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hfrender.renderer.programs import set_uniform
from hfrender.scene.model_parts import Part

MAX_TARGETS = 128  # morph targets a part posed in the shader may have (its u_target_*)
JOINTS_UNIT, TARGETS_UNIT = 5, 6  # texture units of a part's joints and targets
WIDE = 4096  # texels a row of a part's targets' texture (at most)
INFLUENCES = 8  # joints a vertex of a part posed in the shader may follow (in_joints0/1)
BASE = np.dtype([("position", "f4", 3), ("normal", "f4", 3), ("joints", "i4", INFLUENCES),
                 ("weights", "f4", INFLUENCES)])
_ATTRIBUTES = (("in_base_position", "3f", "3x4"), ("in_base_normal", "3f", "3x4"),
               ("in_joints0", "4i", "4x4"), ("in_joints1", "4i", "4x4"),
               ("in_weights0", "4f", "4x4"), ("in_weights1", "4f", "4x4"))


@dataclass(frozen=True, eq=False)
class ShaderPose:
    """A part's pose for ``hf_pose``: its joints' texture rows (J, 32) float32 (each
    joint's matrix's columns, then its clip rate's; None: unskinned), its morph weights and
    their rates (2, :data:`MAX_TARGETS`) float32 (None: unmorphed), and whether its rates
    are known (False: it moves with its part's u_clip_rate alone, as a NumPy pose without
    rates does)."""

    joints: np.ndarray | None
    weights: np.ndarray | None
    rated: bool


def shader_pose(part: Part, matrices: np.ndarray | None, rates: np.ndarray | None,
                shape: tuple | None) -> ShaderPose:
    """``part``'s :class:`ShaderPose` at its joints' ``matrices`` (J, 4, 4), their clip
    ``rates`` (J, 4, 4 or None) and ``shape`` (its morph weights, their rates or None, and
    its clip matrix): :func:`~hfrender.scene.model_skins.posed`'s arguments."""
    joints = weights = None
    if matrices is not None:
        moving = np.zeros_like(matrices) if rates is None else rates
        joints = np.concatenate([matrices.transpose(0, 2, 1).reshape(-1, 16),
                                 moving.transpose(0, 2, 1).reshape(-1, 16)], axis=1)
        joints = joints.astype(np.float32)
    if shape is not None:
        weights = np.zeros((2, MAX_TARGETS), np.float32)
        weights[0, :len(shape[0])] = shape[0]
        if shape[1] is not None:
            weights[1, :len(shape[1])] = shape[1]
    rated = not ((matrices is not None and rates is None)
                 or (shape is not None and shape[1] is None))
    return ShaderPose(joints, weights, rated)


def unfit(ctx: Any, part: Part) -> str | None:
    """Why ``part`` (skinned or morphed) cannot be posed in the shader, the limit it passes
    (``"12 joints a vertex (JOINTS_0 to JOINTS_2), past the 8 the vertex shader poses"``),
    or None where it can: its joints within a texture's rows and :data:`INFLUENCES` a
    vertex at most, its morph targets :data:`MAX_TARGETS` at most and their deltas within
    a texture."""
    most = int(ctx.info.get("GL_MAX_TEXTURE_SIZE", 1 << 30))
    skin, morph = part.skin, part.morph
    if skin is not None and len(skin.joints) > most:
        return (f"a skin of {len(skin.joints)} joints, past the {most} rows of a texture "
                "(GL_MAX_TEXTURE_SIZE) the vertex shader reads them from")
    if skin is not None and (n := skin.influences.shape[1]) > INFLUENCES:
        return (f"{n} joints a vertex (JOINTS_0 to JOINTS_{n // 4 - 1}), past the "
                f"{INFLUENCES} the vertex shader poses")
    if morph is None:
        return None
    if (k := len(morph.defaults)) > MAX_TARGETS:
        return (f"{k} morph target{'s' * (k != 1)}, past the {MAX_TARGETS} the vertex shader "
                "poses")
    if _rows(part) > most:
        return (f"{k} morph targets of {len(part.vertices)} vertices, whose deltas fill "
                f"{_rows(part)} rows of {WIDE} texels, past a texture's {most} "
                "(GL_MAX_TEXTURE_SIZE)")
    return None


def _rows(part: Part) -> int:
    """The rows of ``part``'s targets' texture: 2 texels a vertex a target."""
    return max(1, -(-_texels(part) // WIDE))


def _texels(part: Part) -> int:
    return 2 * len(part.morph.defaults) * len(part.vertices)


def base_rows(part: Part) -> np.ndarray:
    """``part``'s vertices unposed (:data:`BASE`): a skin's in its primitive's frame, its
    joints and weights (8 a vertex: a set of 4 alone padded with weights 0); a morphed
    part's as placed, its base normals (those not normalised: ``shaped``'s)."""
    rows = np.zeros(len(part.vertices), BASE)
    rows["normal"] = part.vertices["normal"]  # (flat shaded: not read)
    skin, morph = part.skin, part.morph
    if skin is None:
        rows["position"] = part.vertices["position"]
        if morph.base_normals is not None:
            rows["normal"] = morph.base_normals
        return rows
    rows["position"] = skin.positions[:, :3]
    if skin.normals is not None:
        rows["normal"] = skin.normals
    n = skin.influences.shape[1]
    rows["joints"][:, :n], rows["weights"][:, :n] = skin.influences, skin.weights
    return rows


class PartShape:
    """A skinned or morphed part's buffer of :func:`base_rows`, its joints' texture
    (written at each new pose) and its targets' (written once)."""

    def __init__(self, ctx: Any, part: Part) -> None:
        import moderngl

        self.part, self.buffer = part, ctx.buffer(base_rows(part).tobytes())
        self.joints = self.targets = None
        self.wide = 0 if part.morph is None else min(WIDE, _texels(part))
        if part.skin is not None:
            self.joints = ctx.texture((8, len(part.skin.joints)), 4, dtype="f4")
        if part.morph is not None:
            self.targets = _targets(ctx, part)
        for texture in (self.joints, self.targets):
            if texture is not None:
                texture.filter = (moderngl.NEAREST, moderngl.NEAREST)  # (texelFetch'd)

    def buffers(self, prog: Any) -> list[tuple]:
        """Its buffer's entry in ``prog``'s vertex array (none where ``prog`` reads none)."""
        if "in_base_position" not in prog:
            return []
        kept = [a[0] for a in _ATTRIBUTES if a[0] in prog]
        fmt = " ".join(used if name in prog else skip for name, used, skip in _ATTRIBUTES)
        return [(self.buffer, fmt, *kept)]

    def write(self, pose: ShaderPose) -> None:
        """Its joints' texture at ``pose``."""
        if pose.joints is not None:
            self.joints.write(pose.joints.tobytes())

    def use(self, prog: Any, pose: ShaderPose) -> None:
        """Bind its textures and set ``prog``'s uniforms of ``pose``."""
        set_uniform(prog, "u_posing", 1)
        set_uniform(prog, "u_pose_joints", int(pose.joints is not None))
        set_uniform(prog, "u_pose_rated", int(pose.rated))
        if self.joints is not None:
            self.joints.use(JOINTS_UNIT)
        set_uniform(prog, "u_joints", JOINTS_UNIT)
        set_uniform(prog, "u_targets", TARGETS_UNIT)
        count = 0 if pose.weights is None else len(self.part.morph.defaults)
        set_uniform(prog, "u_target_count", count)
        if count:
            self.targets.use(TARGETS_UNIT)
            set_uniform(prog, "u_targets_wide", self.wide)
            set_uniform(prog, "u_vertex_count", len(self.part.vertices))
            for name, row in zip(("u_target_weights", "u_target_rates"), pose.weights,
                                 strict=True):
                if name in prog:
                    prog[name].write(row.tobytes())

    def release(self) -> None:
        for obj in (self.buffer, self.joints, self.targets):
            if obj is not None:
                obj.release()


def _targets(ctx: Any, part: Part) -> Any:
    """``part``'s morph targets' deltas as a float texture: texel 2 (k V + v) target k's
    position delta of vertex v, the next its normal delta (0 where it has none)."""
    morph = part.morph
    deltas = np.zeros((len(morph.defaults), len(part.vertices), 2, 4), np.float32)
    deltas[:, :, 0, :3] = morph.positions
    if morph.normals is not None:
        deltas[:, :, 1, :3] = morph.normals
    wide = min(WIDE, _texels(part))
    texels = np.zeros((_rows(part) * wide, 4), np.float32)
    texels[:deltas.size // 4] = deltas.reshape(-1, 4)
    return ctx.texture((wide, _rows(part)), 4, texels.tobytes(), dtype="f4")
