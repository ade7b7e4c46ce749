"""What the model tests share (other tests draw models with them too): ``make_scene`` (objects
on black under ambient light), ``draw`` (its colour and velocity at ``W`` x ``H``) and
``write`` (a trimesh export); trimesh and Pillow or a skip."""

import numpy as np
import pytest

import hfrender as hf
from hfrender.renderer.renderer import SceneRenderer

trimesh = pytest.importorskip("trimesh", reason="the models extra: pip install -e '.[dev]'")
Image = pytest.importorskip("PIL.Image")
W, H = 160, 96


def make_scene(*objects, position=(0.0, 0.0, 5.0), target=(0.0, 0.0, 0.0), **camera):
    """A scene of ``objects`` (made in setup) on black, lit by ambient light alone (every
    surface shows exactly its colour)."""

    class Shot(hf.Scene):
        background = (0.0, 0.0, 0.0)
        ambient = 1.0

        def setup(self):
            for obj in objects:
                self.add(obj)
            self.camera.position = position
            self.camera.look_at(target)
            for name, value in camera.items():
                setattr(self.camera, name, value)

    return Shot()


def draw(glctx, scene, size=(W, H), velocity=False, clip_rates=None):
    """(colour (H, W, 3) uint8, velocity (H, W, 2) or None, renderer clip matrices)."""
    scene.setup()
    renderer = SceneRenderer(glctx.ctx, scene, size, velocity, with_velocity=velocity)
    renderer.prepare()
    renderer.draw(0.0, 0, clip_rates=clip_rates)
    w, h = size
    color = np.empty((h, w, 4), np.uint8)
    vel = np.empty((h, w, 2), np.float32) if velocity else None
    renderer.read_into(color, np.empty((h, w), np.float32) if velocity else None, vel)
    clips = renderer.clip_matrices()
    renderer.release()
    return color[..., :3], vel, clips


def write(mesh_or_scene, path):
    """Export with trimesh; normals are written where the mesh holds them."""
    kind = path.suffix[1:]
    if kind in ("glb", "gltf"):
        scene = (mesh_or_scene if isinstance(mesh_or_scene, trimesh.Scene)
                 else trimesh.Scene(mesh_or_scene))
        normals = all("vertex_normals" in g._cache for g in scene.geometry.values())
        data = scene.export(file_type=kind, include_normals=normals)
        if kind == "gltf":  # a dict of files: the .gltf and its buffers
            for name, blob in data.items():
                (path.parent / (path.name if name.endswith(".gltf") else name)).write_bytes(blob)
            return path
        path.write_bytes(data)
    else:
        mesh_or_scene.export(path)
    return path
