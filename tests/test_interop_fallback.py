"""GL-CUDA interop falls back instead of failing, and cleans up after itself."""

import logging
import re

import numpy as np
import pytest
from render_helpers import render_frames

from hfrender.config import ConfigError, RenderConfig
from hfrender.engine import render_prepare, render_setup
from hfrender.errors import BackendUnavailable
from hfrender.renderer.gl_slots import CudaMapper, GLBufferStorage, GLSlot, HostMapper

pytestmark = pytest.mark.usefixtures("gl_context")
BAR = str(__import__("pathlib").Path(__file__).parent / "data" / "bar.frag")


class FailingMapper(HostMapper):
    """Registers ``ok`` buffers, then fails as cudaGraphicsGLRegisterBuffer can."""

    def __init__(self, ok=1):
        self.ok, self.registered, self.unregistered = ok, 0, []

    def register(self, buffer):
        if self.registered == self.ok:
            raise BackendUnavailable("cudaGraphicsGLRegisterBuffer failed: invalid value")
        self.registered += 1
        return f"handle-{self.registered}"

    def unregister(self, slot):
        self.unregistered.append(slot.handle)


class NvidiaContext:
    class ctx:
        info = {"GL_VENDOR": "NVIDIA Corporation"}


@pytest.mark.parametrize("interop", ["auto", "on"])
def test_no_cuda_python_falls_back_or_is_one_line(monkeypatch, caplog, interop):
    def no_bindings(kind):
        raise BackendUnavailable("GL-CUDA interop needs CuPy and cuda-python (No module named "
                                 "'cuda.bindings'): pip install 'hfrender[cuda]'")

    monkeypatch.setattr(render_setup, "gl_mapper", no_bindings)
    config = RenderConfig(interop=interop)
    if interop == "on":
        with pytest.raises(ConfigError, match=r"^--interop on: GL-CUDA interop needs CuPy and "
                                              r"cuda-python \(No module named 'cuda.bindings'\)"):
            render_setup.gl_storage(config, NvidiaContext, "cuda")
        return
    with caplog.at_level(logging.WARNING):
        assert render_setup.gl_storage(config, NvidiaContext, "cuda") is None
    assert "--interop auto: GL-CUDA interop needs CuPy" in caplog.text
    assert "sub-frames go through host memory" in caplog.text


class NoMemoryContext:
    """A GL context whose buffers fail as a driver short of memory reports it."""

    error = "GL_OUT_OF_MEMORY"

    def __init__(self):
        self.reserved, self.released = [], 0

    def buffer(self, reserve):
        self.reserved.append(reserve)
        context = self

        class Buffer:
            def release(self):
                context.released += 1

        return Buffer()


def test_a_gl_buffer_the_driver_cannot_make_says_its_size():
    from hfrender.hyperframe.pool import SlotLayout

    ctx = NoMemoryContext()
    storage = GLBufferStorage(ctx, FailingMapper(ok=3))
    # 40 frames of 640 x 360 x 4 B = 36,864,000 B (9000 pages: no padding): 36.9 MB
    # (was "35 MiB")
    with pytest.raises(BackendUnavailable, match=r"^a GL buffer of 36\.9 MB for hyperframe "
                                                 r"slot 0 failed: GL_OUT_OF_MEMORY$"):
        storage.make_slots(SlotLayout(40, (360, 640, 4), np.dtype(np.uint8), False), 3)
    assert ctx.reserved == [36_864_000] and ctx.released == 1 and storage.slots == []


def test_a_failing_registration_releases_the_slots_made(gl_context):
    glctx = gl_context("egl", size=(16, 8))
    from hfrender.hyperframe.pool import SlotLayout

    mapper = FailingMapper(ok=1)
    storage = GLBufferStorage(glctx.ctx, mapper)
    with pytest.raises(BackendUnavailable, match="cudaGraphicsGLRegisterBuffer failed"):
        storage.make_slots(SlotLayout(4, (8, 16, 4), np.dtype(np.uint8), False), 3)
    assert mapper.unregistered == ["handle-1"] and storage.slots == []


@pytest.mark.parametrize("interop", ["auto", "on"])
def test_the_render_falls_back_to_host_slots(monkeypatch, interop):
    plain, _ = render_frames(BAR, count=3, size=(32, 8), samples=2)
    monkeypatch.setattr(render_prepare, "gl_storage",
                        lambda config, glctx, backend: GLBufferStorage(glctx.ctx,
                                                                       FailingMapper(ok=1)))
    if interop == "on":
        with pytest.raises(ConfigError, match=r"^--interop on: cudaGraphicsGLRegisterBuffer "
                                              r"failed: invalid value$"):
            render_frames(BAR, count=3, size=(32, 8), samples=2, interop="on")
        return
    frames, stats = render_frames(BAR, count=3, size=(32, 8), samples=2)
    assert not stats.interop
    np.testing.assert_array_equal(frames, plain)


def test_a_failing_unmap_does_not_stop_the_clean_up(gl_context, caplog):
    glctx = gl_context("egl", size=(16, 8))
    from hfrender.hyperframe.pool import SlotLayout

    class Sticky(HostMapper):
        unregistered = False

        def unmap(self, slot):
            raise BackendUnavailable("cudaGraphicsUnmapResources failed: an illegal memory "
                                     "access was encountered")

        def unregister(self, slot):
            Sticky.unregistered = True

    layout = SlotLayout(2, (8, 16, 4), np.dtype(np.uint8), False)
    buffer = glctx.ctx.buffer(reserve=layout.slot_bytes)
    slot = GLSlot(0, layout, buffer, glctx.ctx, Sticky())
    slot.publish(1)
    with caplog.at_level(logging.WARNING):
        slot.release_gl()  # no exception: logged, and the rest is released
    assert "an illegal memory access" in caplog.text and Sticky.unregistered
    assert type(buffer.mglo).__name__ == "InvalidObject"  # the GL buffer is released too


def test_cuda_error_strings_are_decoded():
    mapper = object.__new__(CudaMapper)

    class Runtime:
        @staticmethod
        def cudaGetErrorString(err):
            return (0, b"an illegal memory access was encountered")

    mapper.rt = Runtime
    with pytest.raises(BackendUnavailable, match=r"^cudaGraphicsMapResources failed: an "
                                                 r"illegal memory access was encountered$"):
        mapper._check((700,), "cudaGraphicsMapResources")


class FakeRuntime:
    """cuda.bindings.runtime's graphics calls, as tuples (error, results...), recording
    what is mapped and registered; ``mapped_size``: the bytes a mapped pointer gives."""

    class cudaGraphicsRegisterFlags:  # noqa: N801 - the binding's name
        cudaGraphicsRegisterFlagsReadOnly = 1

    def __init__(self, mapped_size, pointer_error=0):
        self.mapped_size, self.pointer_error = mapped_size, pointer_error
        self.registered, self.mapped = set(), set()

    def cudaGetErrorString(self, err):  # noqa: N802
        return (0, b"invalid resource handle")

    def cudaGraphicsGLRegisterBuffer(self, glo, flags):  # noqa: N802
        self.registered.add(glo)
        return (0, glo)

    def cudaGraphicsUnregisterResource(self, res):  # noqa: N802
        self.registered.discard(res)
        return (0,)

    def cudaGraphicsMapResources(self, n, res, stream):  # noqa: N802
        self.mapped.add(res)
        return (0,)

    def cudaGraphicsUnmapResources(self, n, res, stream):  # noqa: N802
        self.mapped.discard(res)
        return (0,)

    def cudaGraphicsResourceGetMappedPointer(self, res):  # noqa: N802
        return (self.pointer_error, 0x7F0000000000, self.mapped_size)


def fake_mapper(rt):
    mapper = object.__new__(CudaMapper)
    mapper.rt, mapper.stream = rt, 0
    return mapper


class FakeBuffer:
    def __init__(self, glo, size):
        self.glo, self.size = glo, size


def test_a_buffer_cuda_maps_in_full_is_registered_and_left_unmapped():
    size = int(np.random.default_rng().integers(1 << 20, 1 << 30))
    rt = FakeRuntime(size)
    assert fake_mapper(rt).register(FakeBuffer(7, size)) == 7
    assert rt.registered == {7} and rt.mapped == set()


@pytest.mark.parametrize("mapped", [2**64 - 4096, 2**31 - 4096])
def test_a_buffer_cuda_does_not_map_in_full_is_refused_and_unregistered(mapped):
    # on the H200 (2026-12-04) a 1080p --hdr slot of more than 2 GiB mapped to a size that
    # overflowed CuPy mid-render; now it is refused where --interop auto falls back
    rt = FakeRuntime(mapped)
    size = 2**31 + 8192
    # 2,147,491,840 B: 2.1 GB; the limit exact, 2**31 B (2.1 GB too)
    said = (rf"^CUDA maps {mapped} bytes of a GL buffer of {size} \(2\.1 GB; it maps those "
            r"under 2147483648 bytes in full\)$")
    with pytest.raises(BackendUnavailable, match=said):
        fake_mapper(rt).register(FakeBuffer(9, size))
    assert rt.registered == set() and rt.mapped == set()


def test_a_mapped_pointer_that_fails_leaves_the_buffer_unmapped_and_unregistered():
    rt = FakeRuntime(4096, pointer_error=400)
    with pytest.raises(BackendUnavailable, match=r"^cudaGraphicsResourceGetMappedPointer "
                                                 r"failed: invalid resource handle$"):
        fake_mapper(rt).register(FakeBuffer(3, 4096))
    assert rt.registered == set() and rt.mapped == set()


@pytest.mark.parametrize("fits", [5, 9])
def test_gl_slots_hold_no_more_sub_frames_than_cuda_maps_in_full(monkeypatch, fits):
    """--granularity auto in GL buffers stays under MAX_SLOT_BYTES (2 GiB on a GPU; here
    made room for ``fits`` sub-frames): whole output frames of 2 sub-frames, plus the halo,
    and the same frames as host slots give."""
    from hfrender.hyperframe.pool import ALIGN, sub_frame_bytes
    from hfrender.renderer import gl_slots

    plain, plain_stats = render_frames(BAR, count=12, size=(32, 8), samples=2)
    made = []

    class Recording(GLBufferStorage):
        def make_slots(self, layout, count):
            made.append(layout)
            return super().make_slots(layout, count)

    one = sub_frame_bytes((8, 32, 4), np.uint8)
    monkeypatch.setattr(gl_slots, "MAX_SLOT_BYTES", fits * one + 3 * ALIGN)
    monkeypatch.setattr(render_prepare, "gl_storage", lambda config, glctx, backend: Recording(
        glctx.ctx, HostMapper()))
    frames, stats = render_frames(BAR, count=12, size=(32, 8), samples=2)
    assert plain_stats.granularity > fits  # the cap is what cut it
    assert stats.granularity == made[0].capacity <= fits
    assert stats.granularity >= fits - 1  # as many as fit, in whole output frames
    assert made[0].slot_bytes <= gl_slots.MAX_SLOT_BYTES
    np.testing.assert_array_equal(frames, plain)


@pytest.mark.parametrize("interop", ["auto", "on"])
@pytest.mark.parametrize("granularity", ["auto", 8])
def test_a_hyperframe_over_what_cuda_maps_goes_through_host_memory_or_is_refused(
        monkeypatch, caplog, interop, granularity):
    """Where even a hyperframe's least (its carried sub-frames and one output frame's, or
    the --granularity given) is over MAX_SLOT_BYTES, auto uses host slots (the same
    frames) and says why; on refuses in one line. (--granularity auto's least here: 2.)"""
    from hfrender.hyperframe.pool import ALIGN, sub_frame_bytes
    from hfrender.renderer import gl_slots

    plain, _ = render_frames(BAR, count=4, size=(32, 8), samples=2)
    one = sub_frame_bytes((8, 32, 4), np.uint8)
    fits = 1 if granularity == "auto" else 6
    monkeypatch.setattr(gl_slots, "MAX_SLOT_BYTES", fits * one + 3 * ALIGN)
    monkeypatch.setattr(render_prepare, "gl_storage",
                        lambda config, glctx, backend: GLBufferStorage(glctx.ctx, HostMapper()))
    least = 2 if granularity == "auto" else 8
    # sub-frames of 32 x 8 x 4 B = 1024 B: 2 are 2048 B (2.0 KB) over the room of 1 (1.0
    # KB), 8 are 8192 B (8.2 KB) over that of 6 (6144 B, 6.1 KB); was "(0.00 GiB) ... 2 GiB"
    over = r"2\.0 KB\) is over the 1\.0 KB" if granularity == "auto" else \
        r"8\.2 KB\) is over the 6\.1 KB"
    said = (rf"a hyperframe of {least} sub-frames \({over} a GL buffer "
            r"shared with CUDA can be \(CUDA maps no more of it\): lower --samples, --size or "
            r"--granularity, or --interop off")
    if interop == "on":
        with pytest.raises(ConfigError, match=rf"^--interop on: {said}$"):
            render_frames(BAR, count=4, size=(32, 8), samples=2, interop="on",
                          granularity=granularity)
        return
    with caplog.at_level(logging.WARNING):
        frames, stats = render_frames(BAR, count=4, size=(32, 8), samples=2,
                                      granularity=granularity)
    assert not stats.interop and re.search(said, caplog.text)
    np.testing.assert_array_equal(frames, plain)
