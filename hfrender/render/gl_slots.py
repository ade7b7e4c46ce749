"""Hyperframe slots that live in OpenGL buffers: sub-frames never leave the GPU.

Each slot is one GL buffer. The renderer reads every sub-frame into it at an offset
(``Framebuffer.read_into(buffer, write_offset=...)``, a GPU-to-GPU copy); halo frames
move with ``copy_buffer``. When a hyperframe is full the slot is *published*: a mapper
makes its bytes readable as arrays by the fusion backend. With CUDA the buffer is
registered once (``cudaGraphicsGLRegisterBuffer``, cuda-python) and mapped on the
fusion stream, so the kernels read it in place; CuPy has no GL interop of its own. The
``HostMapper`` reads the buffer back instead, for testing the same slot logic on Mesa.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from hfrender.errors import BackendUnavailable
from hfrender.hyperframe.pool import Slot, SlotLayout

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GLRegion:
    """Where one sub-frame goes: ``buffer`` at byte ``offset``."""

    buffer: Any  # moderngl.Buffer
    offset: int
    nbytes: int


class GLSlot(Slot):
    def __init__(self, index: int, layout: SlotLayout, buffer: Any, ctx: Any,
                 mapper: Any) -> None:
        super().__init__(index, None, None, layout.capacity)
        self.layout, self.buffer, self.ctx, self.mapper = layout, buffer, ctx, mapper
        self.handle = mapper.register(buffer)
        self.mapped = False

    def target(self, i: int) -> tuple[GLRegion, GLRegion | None]:
        lay = self.layout
        color = GLRegion(self.buffer, i * lay.frame_bytes, lay.frame_bytes)
        depth = None
        if lay.depth:
            depth = GLRegion(self.buffer, lay.color_bytes + i * lay.depth_bytes, lay.depth_bytes)
        return color, depth

    def copy_from(self, src: Slot, src_start: int, dst_start: int, count: int) -> None:
        lay = self.layout
        self.ctx.copy_buffer(self.buffer, src.buffer, count * lay.frame_bytes,
                             read_offset=src_start * lay.frame_bytes,
                             write_offset=dst_start * lay.frame_bytes)
        if lay.depth:
            self.ctx.copy_buffer(self.buffer, src.buffer, count * lay.depth_bytes,
                                 read_offset=lay.color_bytes + src_start * lay.depth_bytes,
                                 write_offset=lay.color_bytes + dst_start * lay.depth_bytes)

    def publish(self, n: int) -> None:
        raw = self.mapper.map(self)
        self.mapped = True
        self.frames, self.depth = self.layout.views(raw, 0)

    def reclaim(self) -> None:
        if self.mapped:
            self.mapper.unmap(self)
            self.mapped = False
        self.frames = self.depth = None

    def release_gl(self) -> None:
        """Unmap, unregister and free the buffer, each step whatever the one before did
        (after a CUDA fault unmapping fails): the first failure is logged, not raised, so
        the rest of the clean-up happens and the error that stopped the render is told."""
        for step in (self.reclaim, lambda: self.mapper.unregister(self), self.buffer.release):
            try:
                step()
            except Exception as exc:  # noqa: BLE001 - clean-up goes on
                log.warning("releasing GL slot %d: %s", self.index, exc)


class GLBufferStorage:
    """A pool's slots as GL buffers of the render context (call from the render thread)."""

    name = "gl"

    def __init__(self, ctx: Any, mapper: Any) -> None:
        self.ctx, self.mapper = ctx, mapper
        self.slots: list[GLSlot] = []

    def make_slots(self, layout: SlotLayout, count: int) -> tuple[list[Slot], None]:
        """``count`` slots, each a GL buffer registered with the mapper. A buffer the driver
        could not make (moderngl does not check) or a registration that fails releases
        what was made and raises :class:`BackendUnavailable`."""
        try:
            for i in range(count):
                buffer = self.ctx.buffer(reserve=layout.slot_bytes)
                error = self.ctx.error
                if error != "GL_NO_ERROR":
                    buffer.release()
                    raise BackendUnavailable(f"a GL buffer of {layout.slot_bytes / 2**20:.0f} "
                                             f"MiB for hyperframe slot {i} failed: {error}")
                try:
                    self.slots.append(GLSlot(i, layout, buffer, self.ctx, self.mapper))
                except BaseException:
                    buffer.release()
                    raise
        except BaseException:
            self.release()
            raise
        return list(self.slots), None

    def release(self) -> None:
        for slot in self.slots:
            slot.release_gl()
        self.slots = []


class HostMapper:
    """Maps a slot by reading its GL buffer back to the host (tests the slot logic)."""

    name = "host"

    def register(self, buffer: Any) -> None:
        return None

    def map(self, slot: GLSlot) -> np.ndarray:
        return np.frombuffer(slot.buffer.read(), np.uint8).copy()

    def unmap(self, slot: GLSlot) -> None:
        pass

    def unregister(self, slot: GLSlot) -> None:
        pass


class CudaMapper:
    """Maps a slot's GL buffer into CUDA: a CuPy view of the same device memory."""

    name = "cuda"

    def __init__(self) -> None:
        try:
            import cupy
            from cuda.bindings import runtime
        except ImportError as exc:
            raise BackendUnavailable(f"GL-CUDA interop needs CuPy and cuda-python ({exc}): "
                                     "pip install 'hfrender[cuda]'") from None
        self.cupy, self.rt = cupy, runtime
        # map and unmap on a stream of the interop's own: on the default stream they would
        # wait for every kernel issued before them (drawing into a reclaimed slot waiting
        # for the fusion just submitted); the map is synchronised before the kernels read
        self._stream = cupy.cuda.Stream(non_blocking=True)
        self.stream = self._stream.ptr

    def _check(self, result: tuple, what: str) -> tuple:
        err = result[0]
        if int(err) != 0:
            said = self.rt.cudaGetErrorString(err)[1]
            said = said.decode(errors="replace") if isinstance(said, bytes) else str(said)
            raise BackendUnavailable(f"{what} failed: {said}")
        return result[1:]

    def register(self, buffer: Any) -> Any:
        flags = self.rt.cudaGraphicsRegisterFlags.cudaGraphicsRegisterFlagsReadOnly
        (resource,) = self._check(self.rt.cudaGraphicsGLRegisterBuffer(buffer.glo, flags),
                                  "cudaGraphicsGLRegisterBuffer")
        return resource

    def map(self, slot: GLSlot) -> Any:
        self._check(self.rt.cudaGraphicsMapResources(1, slot.handle, self.stream),
                    "cudaGraphicsMapResources")
        ptr, size = self._check(self.rt.cudaGraphicsResourceGetMappedPointer(slot.handle),
                                "cudaGraphicsResourceGetMappedPointer")
        self._stream.synchronize()  # mapped before any kernel reads it
        mem = self.cupy.cuda.UnownedMemory(int(ptr), int(size), slot)
        return self.cupy.ndarray((int(size),), self.cupy.uint8,
                                 self.cupy.cuda.MemoryPointer(mem, 0))

    def unmap(self, slot: GLSlot) -> None:
        self._check(self.rt.cudaGraphicsUnmapResources(1, slot.handle, self.stream),
                    "cudaGraphicsUnmapResources")

    def unregister(self, slot: GLSlot) -> None:
        if slot.handle is not None:
            self._check(self.rt.cudaGraphicsUnregisterResource(slot.handle),
                        "cudaGraphicsUnregisterResource")
            slot.handle = None
