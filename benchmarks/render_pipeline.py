"""The hyperframe pipeline vs two baselines, same scene and settings, in one run.

* naive: per sub-frame ``fbo.read()`` into a new array, ``np.stack`` per output frame,
  NumPy sRGB maths (``pow``), mean, encode, write;
* accumulation buffer (the simplest good alternative): each sub-frame converted to linear
  light in a fragment shader and added with blending into an RGBA32F target, encoded to
  sRGB in a last pass, one readback per output frame;
* hfrender: ``hfrender.engine.render.render`` (sub-frames read into hyperframe slots, fused on
  a second thread, written by ffmpeg).

All three draw the sub-frames with the same renderer and write the same mp4 encoder, so
the comparison is about what happens after drawing. Prints output fps and ratios.

    python benchmarks/render_pipeline.py [--frames 60] [--size 640x360] [--samples 8]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from hfrender.config import RenderConfig, parse_size
from hfrender.engine.render import render
from hfrender.io.writers import open_writer
from hfrender.renderer.contexts import create_context
from hfrender.renderer.renderer import make_renderer
from hfrender.sampler import SampleSchedule, pixel_offsets
from hfrender.scene.loader import load_scene

SCENES = Path(__file__).resolve().parents[1] / "scenes"
# a mesh scene with lens depth of field, and a Shadertoy-style shader (no camera, no DoF)
SCENE_FILES = {"showcase": SCENES / "showcase.py", "plasma": SCENES / "plasma.frag"}

ACCUMULATE = """
#version 330 core
uniform sampler2D u_src;
uniform float u_weight;
out vec4 f_color;
void main() {
    vec3 c = texelFetch(u_src, ivec2(gl_FragCoord.xy), 0).rgb;
    vec3 lin = mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(0.04045, c));
    f_color = vec4(lin * u_weight, u_weight);
}
"""
ENCODE = """
#version 330 core
uniform sampler2D u_acc;
out vec4 f_color;
void main() {
    vec3 c = clamp(texelFetch(u_acc, ivec2(gl_FragCoord.xy), 0).rgb, 0.0, 1.0);
    f_color = vec4(mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055,
                       step(0.0031308, c)), 1.0);
}
"""
FULLSCREEN = """
#version 330 core
void main() {
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
"""


def setup(scene_file, size, samples, frames, msaa=1):
    scene = load_scene(scene_file)
    scene.setup()
    plan = SampleSchedule(30.0, 180.0, "center", "box", samples).plan(frames)
    glctx = create_context("egl", size=size)
    renderer = make_renderer(glctx.ctx, scene, size, False, 30.0, msaa=msaa)
    renderer.prepare()
    return scene, plan, glctx, renderer


def draw(scene, renderer, plan, j):
    t = float(plan.times[j])
    scene.update(t)
    i = j % plan.per_output
    renderer.draw(t, int(plan.output[j]), tuple(plan.lens[j]),
                  tuple(pixel_offsets(plan.per_output)[i]))


def run_naive(scene_file, out, size, samples, frames):
    scene, plan, glctx, renderer = setup(scene_file, size, samples, frames)
    w, h = size
    writer = open_writer(out, 30.0, size)
    t0 = time.perf_counter()
    subs = []
    for j in range(len(plan.times)):
        draw(scene, renderer, plan, j)
        data = renderer.target.fbo.read(components=4)  # a new bytes object per sub-frame
        subs.append(np.frombuffer(data, np.uint8).reshape(h, w, 4))
        if len(subs) == plan.per_output:
            stack = np.stack(subs).astype(np.float64) / 255.0
            lin = np.where(stack <= 0.04045, stack / 12.92, ((stack + 0.055) / 1.055) ** 2.4)
            mean = np.clip(lin.mean(axis=0)[..., :3], 0, 1)
            enc = np.where(mean <= 0.0031308, mean * 12.92, 1.055 * mean ** (1 / 2.4) - 0.055)
            writer.write(np.rint(enc * 255).astype(np.uint8))
            subs = []
    writer.close()
    seconds = time.perf_counter() - t0
    renderer.release()
    glctx.release()
    return frames / seconds


def run_accumulation(scene_file, out, size, samples, frames, msaa=1):
    import moderngl

    scene, plan, glctx, renderer = setup(scene_file, size, samples, frames, msaa)
    ctx = glctx.ctx
    acc = ctx.texture(size, 4, dtype="f4")
    acc_fbo = ctx.framebuffer([acc])
    enc = ctx.texture(size, 4, dtype="f1")
    enc_fbo = ctx.framebuffer([enc])
    add = ctx.program(vertex_shader=FULLSCREEN, fragment_shader=ACCUMULATE)
    fin = ctx.program(vertex_shader=FULLSCREEN, fragment_shader=ENCODE)
    add_vao, fin_vao = ctx.vertex_array(add, []), ctx.vertex_array(fin, [])
    add["u_src"] = 0
    fin["u_acc"] = 1
    add["u_weight"] = 1.0 / plan.per_output
    w, h = size
    frame = np.empty((h, w, 4), np.uint8)
    writer = open_writer(out, 30.0, size)
    t0 = time.perf_counter()
    for j in range(len(plan.times)):
        draw(scene, renderer, plan, j)
        acc_fbo.use()
        if j % plan.per_output == 0:
            acc_fbo.clear(0.0, 0.0, 0.0, 0.0)
        ctx.disable(moderngl.DEPTH_TEST)
        ctx.enable(moderngl.BLEND)
        ctx.blend_func = moderngl.ONE, moderngl.ONE
        renderer.target.color.use(0)
        add_vao.render(moderngl.TRIANGLES, vertices=3)
        ctx.disable(moderngl.BLEND)
        if j % plan.per_output == plan.per_output - 1:
            enc_fbo.use()
            acc.use(1)
            fin_vao.render(moderngl.TRIANGLES, vertices=3)
            enc_fbo.read_into(frame, components=4)  # one readback per output frame
            writer.write(frame[..., :3])
    writer.close()
    seconds = time.perf_counter() - t0
    renderer.release()
    glctx.release()
    return frames / seconds


def run_hfrender(scene_file, out, size, samples, frames):
    config = RenderConfig(output=out, size=size, samples=samples, duration=frames / 30.0,
                          quiet=True)
    stats = render(scene_file, config)
    # the same window as the baselines: from the first draw to the closed file
    return stats.frames_written / (stats.seconds - stats.setup_s)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=60)
    p.add_argument("--size", default="640x360")
    p.add_argument("--samples", type=int, default=8)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--scene", choices=[*SCENE_FILES, "all"], default="all")
    args = p.parse_args()
    size = parse_size(args.size)
    for name in SCENE_FILES if args.scene == "all" else [args.scene]:
        compare(SCENE_FILES[name], size, args.samples, args.frames, args.repeats)


def compare(scene_file, size, samples, frames, repeats) -> None:
    runs = {"naive": run_naive, "accumulation": run_accumulation, "hfrender": run_hfrender}
    fps = {name: [] for name in runs}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats):  # interleaved, so drift hits all three alike
            for name, fn in runs.items():
                fps[name].append(fn(scene_file, str(Path(tmp) / f"{name}.mp4"), size, samples,
                                    frames))
    med = {k: statistics.median(v) for k, v in fps.items()}
    dof = "lens DoF" if scene_file.suffix == ".py" else "a shader, no DoF"
    print(f"{scene_file.name}, {frames} frames {size[0]}x{size[1]} x {samples} samples, "
          f"{dof}, mp4; median of {repeats} runs (output frames per second)")
    for name in runs:
        print(f"  {name:<13} {med[name]:6.1f} fps   runs: "
              + ", ".join(f"{v:.1f}" for v in fps[name]))
    print(f"  hfrender / accumulation = {med['hfrender'] / med['accumulation']:.2f}x, "
          f"hfrender / naive = {med['hfrender'] / med['naive']:.2f}x")


if __name__ == "__main__":
    main()
