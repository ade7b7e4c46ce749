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

from hfrender.errors import BackendUnavailable, spelling
from hfrender.hyperframe.pool import ALIGN, FrameTarget, Slot, SlotLayout
from hfrender.sizes import bytes_said

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
        super().__init__(index, None, None, None, layout.capacity)
        self.layout, self.buffer, self.ctx, self.mapper = layout, buffer, ctx, mapper
        self.handle = mapper.register(buffer)
        self.mapped = False

    def _planes(self) -> list[tuple[int, int]]:
        """(start, bytes per frame) of each plane the slot holds: colour, depth, velocity."""
        lay = self.layout
        planes = [(0, lay.frame_bytes)]
        if lay.depth:
            planes.append((lay.color_bytes, lay.depth_bytes))
        if lay.velocity:
            planes.append((lay.velocity_offset, lay.velocity_bytes))
        return planes

    def target(self, i: int) -> FrameTarget:
        regions = [GLRegion(self.buffer, start + i * size, size) for start, size in self._planes()]
        lay = self.layout
        color = regions.pop(0)
        depth = regions.pop(0) if lay.depth else None
        velocity = regions.pop(0) if lay.velocity else None
        return FrameTarget(color, depth, velocity)

    def copy_from(self, src: Slot, src_start: int, dst_start: int, count: int) -> None:
        for start, size in self._planes():
            self.ctx.copy_buffer(self.buffer, src.buffer, count * size,
                                 read_offset=start + src_start * size,
                                 write_offset=start + dst_start * size)

    def publish(self, n: int) -> None:
        raw = self.mapper.map(self)
        self.mapped = True
        self.frames, self.depth, self.velocity = self.layout.views(raw, 0)

    def reclaim(self) -> None:
        if self.mapped:
            self.mapper.unmap(self)
            self.mapped = False
        self.frames = self.depth = self.velocity = None

    def release_gl(self) -> None:
        """Unmap, unregister and free the buffer, each step whatever the one before did
        (after a CUDA fault unmapping fails): the first failure is logged, not raised, so
        the rest of the clean-up happens and the error that stopped the render is told."""
        for step in (self.reclaim, lambda: self.mapper.unregister(self), self.buffer.release):
            try:
                step()
            except Exception as exc:  # noqa: BLE001 - clean-up goes on
                log.warning("releasing GL slot %d: %s", self.index, exc)


# CUDA gives the mapped size of a GL buffer as a 32-bit int (the H200's driver 580, 2026-12-04:
# 2 GiB + 1 MiB came back as 2**64 - 2**31 + 1 MiB, 4 GiB + 1 MiB as 1 MiB): the sizes it
# gives back in full are under CUDA_MAPS, and slots stay under MAX_SLOT_BYTES
CUDA_MAPS = 2**31
MAX_SLOT_BYTES = CUDA_MAPS - 2**20


class GLBufferStorage:
    """A pool's slots as GL buffers of the render context (call from the render thread)."""

    name = "gl"

    @staticmethod
    def most_frames(sub_frame_bytes: int, least: int = 1) -> int:
        """The most sub-frames of ``sub_frame_bytes`` a slot holds under
        :data:`MAX_SLOT_BYTES` (each of its three planes aligned: at most three pages
        more); :class:`BackendUnavailable` where that is fewer than ``least`` (a hyperframe's
        carried sub-frames and one output frame's, or the --granularity given)."""
        room = MAX_SLOT_BYTES - 3 * ALIGN
        most = room // sub_frame_bytes
        if most < least:
            said = spelling()
            raise BackendUnavailable(
                f"a hyperframe of {least} sub-frames ({bytes_said(least * sub_frame_bytes)}) "
                f"is over the {bytes_said(room)} a GL buffer shared with CUDA can be (CUDA "
                f"maps no more of it): lower {said.name('samples')}, {said.name('size')} or "
                f"{said.name('granularity')}, or {said.said('interop', 'off')}")
        return most

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
                    raise BackendUnavailable(f"a GL buffer of {bytes_said(layout.slot_bytes)} "
                                             f"for hyperframe slot {i} failed: {error}")
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
        """The buffer registered with CUDA, mapped once to check that CUDA sees all of it (a
        size CUDA does not give back is refused here, where ``--interop auto`` can still
        fall back to host memory, not mid-render)."""
        flags = self.rt.cudaGraphicsRegisterFlags.cudaGraphicsRegisterFlagsReadOnly
        (resource,) = self._check(self.rt.cudaGraphicsGLRegisterBuffer(buffer.glo, flags),
                                  "cudaGraphicsGLRegisterBuffer")
        try:  # refused or failed: the registration goes too
            size = self._mapped(resource)[1]
            self._unmap(resource)
            if size != buffer.size:
                raise BackendUnavailable(f"CUDA maps {size} bytes of a GL buffer of "
                                         f"{buffer.size} ({bytes_said(buffer.size)}; it maps "
                                         f"those under {CUDA_MAPS} bytes in full)")
        except BaseException:
            self.rt.cudaGraphicsUnregisterResource(resource)
            raise
        return resource

    def _mapped(self, resource: Any) -> tuple[int, int]:
        """(device pointer, bytes) of ``resource``, mapped (unmapped again if that fails)."""
        self._check(self.rt.cudaGraphicsMapResources(1, resource, self.stream),
                    "cudaGraphicsMapResources")
        try:
            ptr, size = self._check(self.rt.cudaGraphicsResourceGetMappedPointer(resource),
                                    "cudaGraphicsResourceGetMappedPointer")
        except BaseException:
            self._unmap(resource)
            raise
        return int(ptr), int(size)

    def map(self, slot: GLSlot) -> Any:
        ptr, size = self._mapped(slot.handle)
        self._stream.synchronize()  # mapped before any kernel reads it
        mem = self.cupy.cuda.UnownedMemory(ptr, size, slot)
        return self.cupy.ndarray((size,), self.cupy.uint8, self.cupy.cuda.MemoryPointer(mem, 0))

    def _unmap(self, resource: Any) -> None:
        self._check(self.rt.cudaGraphicsUnmapResources(1, resource, self.stream),
                    "cudaGraphicsUnmapResources")

    def unmap(self, slot: GLSlot) -> None:
        self._unmap(slot.handle)

    def unregister(self, slot: GLSlot) -> None:
        if slot.handle is not None:
            self._check(self.rt.cudaGraphicsUnregisterResource(slot.handle),
                        "cudaGraphicsUnregisterResource")
            slot.handle = None
