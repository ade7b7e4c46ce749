"""Text as sharp as its size on the picture asks (hf.Text): a raster 2, 4, ... times finer
than the 128 px font where a raster pixel spans more than a picture pixel, chosen per
sub-frame from the camera, on the same quad; small text from the mipmapped 128 px one."""

import math

import numpy as np
import pytest

import hfrender as hf
from hfrender import heap
from hfrender.renderer import text as drawing
from hfrender.scene import text as text_module
from tests.mesh_helpers import draw, make_scene
from tests.render_helpers import linear

W, H = 128, 480  # an orthographic camera 2 m high: 240 px a metre


def _crossing(profile, level):
    """Where ``profile`` first reaches ``level``, in pixels between pixel centres."""
    i = int(np.flatnonzero(profile >= level)[0])
    return i - 1 + (level - profile[i - 1]) / (profile[i] - profile[i - 1])


def _rise(profile):
    """The 10%-90% rise of the first edge of ``profile`` (0 .. 1), pixels."""
    return _crossing(profile, 0.9) - _crossing(profile, 0.1)


def test_a_large_letters_edges_are_a_pixel_wide(gl_context):
    """An "I" 400 px tall (a title's cap height on a 1080p frame), its stem's left and
    right edges at 4 places across a pixel: a 10%-90% rise of some 1.3 px (a pixel's
    coverage of an edge measures 0.9 to 1.6), at most 1.6; was 3.7 px, 3.8 at most, from
    the 128 px font's 89 px of cap height magnified 4.5 times. The finer raster lies where
    the projection puts the text: its cap 400 px tall (within level 0's rounding of it to
    a whole pixel), centred."""
    glctx, rises, cap_px = gl_context(size=(W, H)), [], 400
    for dx in (0.0, 0.25, 0.5, 0.75):
        word = hf.Text("I", height=cap_px / 240, position=(dx / 240, 0, 0))
        color, _, _ = draw(glctx, make_scene(word, orthographic=True, ortho_height=2.0),
                           size=(W, H))
        row = linear(color[H // 2, :, 1])
        rises += [_rise(row), _rise(row[::-1])]
        column = linear(color[:, W // 2, 1])
        top, bottom = _crossing(column, 0.5), H - 1 - _crossing(column[::-1], 0.5)
        assert abs((top + bottom) / 2 - (H - 1) / 2) <= 0.5  # (pixel centres)
        assert abs(bottom - top - cap_px) <= 0.01 * cap_px  # level 0's cap: whole pixels
    assert np.mean(rises) <= 1.45 and max(rises) <= 1.7, rises


def test_the_level_is_the_least_as_fine_as_the_picture_within_the_gls_texture():
    shape, most = (171, 60), 16384  # an "I"'s raster at 128 px
    assert [drawing.level(s, shape, most) for s in (0.0, 0.5, 1.0, 1.01, 2.0, 4.4)] == [
        0, 0, 0, 1, 1, 3]
    assert drawing.level(math.inf, shape, most) == drawing.MOST_LEVEL == 5
    assert drawing.level(math.inf, shape, 4096) == 4  # 171 x 16 = 2736 px; x 32 too tall
    assert drawing.level(math.inf, (171, 4000), most) == 2  # 4 x 4 x 684,000 px fit in 32 M
    assert drawing.level(9.0, (171, 20000), most) == 0  # past the GL already: fitted


def test_on_picture_is_a_raster_pixels_size_at_the_nearest_corner():
    word = hf.Text("I", height=1.0, position=(0.0, 0.0, -3.0))
    raster = word.raster()
    step = 1.0 / raster.cap  # metres a raster pixel
    lens = ((0.0, 0.0, 2.0), (0.0, 0.0, -1.0), 500.0)  # 500 px a metre 1 m away
    model = word.model_matrix()
    assert math.isclose(drawing.on_picture(model, raster.bounds, lens, True), step * 500)
    assert math.isclose(drawing.on_picture(model, raster.bounds, lens, False), step * 100)
    word.rotation = (0.0, math.pi / 2, 0.0)  # edge on: its near corner 5 m - half its width
    near = 5.0 + raster.bounds[0, 0] * step
    assert math.isclose(drawing.on_picture(word.model_matrix(), raster.bounds, lens, False),
                        step * 500 / near)
    behind = ((0.0, 0.0, -3.5), (0.0, 0.0, -1.0), 500.0)  # looking away
    assert drawing.on_picture(model, raster.bounds, behind, False) == math.inf


def _ink_box(raster):
    """(left, right, top, bottom) of the glyphs' ink (coverage >= 128) on the quad."""
    h, w = raster.coverage.shape
    (x0, y0, _), (x1, y1, _) = raster.bounds
    rows = np.flatnonzero((raster.coverage >= 128).any(axis=1))
    cols = np.flatnonzero((raster.coverage >= 128).any(axis=0))
    across, down = (x1 - x0) / w, (y1 - y0) / h
    return np.array([x0 + cols[0] * across, x0 + (cols[-1] + 1) * across,
                     y1 - rows[0] * down, y1 - (rows[-1] + 1) * down])


def test_a_finer_raster_is_the_same_text_on_the_same_quad():
    """Each level's glyphs lie where level 0's do, within a level-0 pixel (level 0's
    heights and line pitch are rounded to its pixels), and within a pixel of the coarser
    one of one another: no jump as a camera pushing in passes from one level to the
    next."""
    for text, align in (("Hi\nyou", "left"), ("hfrender", "center"), ("I", "right")):
        base = text_module.raster(text, None, align)
        boxes = [_ink_box(base)]
        for level in (1, 2, 3):
            fine = text_module.raster_at(level, text, None, align)
            assert fine.cap == base.cap  # the model matrix's, whatever the level
            assert fine.coverage.shape[1] / base.coverage.shape[1] == pytest.approx(
                2 ** level, rel=0.01)
            assert fine.key != base.key and fine.key.startswith(base.key)
            boxes.append(_ink_box(fine))
        np.testing.assert_allclose(boxes[1:], [boxes[0]] * 3, atol=1.2)
        np.testing.assert_allclose(boxes[2:], [boxes[1]] * 2, atol=0.8)
    assert hf.Text("I", align="right").raster(2) is text_module.raster_at(2, "I", None, "right")


def test_uploaded_rasters_past_their_pixels_are_released(gl_context, monkeypatch):
    """Finer rasters are megapixels: the drawer keeps at most KEPT_PIXELS of them
    uploaded (the newest one whatever its size), as it keeps KEPT rasters."""
    drawer = drawing.TextDrawer(gl_context().ctx, None)
    rasters = [text_module.raster_at(2, "I", None, align) for align in text_module.ALIGNS]
    monkeypatch.setattr(drawing, "KEPT_PIXELS", 2 * rasters[0].coverage.size)
    for raster in rasters:
        drawer._upload(raster.key, lambda r=raster: r)
    assert list(drawer.uploads) == [r.key for r in rasters[1:]]  # the first one released
    drawer.release()


def test_a_finer_raster_still_uploaded_is_not_made_again(gl_context, monkeypatch):
    """More texts drawn finer than raster_at keeps (LEVELS_KEPT) are each rasterised once
    while their uploads are kept (was: every one again at every draw, twice a sub-frame: a
    level-2 title some 30 ms of Pillow each time)."""
    ctx = gl_context().ctx
    fbo = ctx.simple_framebuffer((8, 8))
    fbo.use()
    drawer = drawing.TextDrawer(ctx, None)
    prog = drawer.program(None)
    words = [hf.Text(f"word {k}") for k in range(text_module.LEVELS_KEPT + 2)]
    made, real = [], text_module._drawn
    monkeypatch.setattr(text_module, "_drawn",
                        lambda *a: (a[4] and made.append((a[0], a[4]))) or real(*a))
    text_module.raster_at.cache_clear()
    for _ in range(2):
        for word in words:
            drawer.render(prog, word, 0.0, 1.5)  # a raster pixel 1.5 px: level 1
    assert made == [(w.text, 1) for w in words]
    assert list(drawer.uploads) == [w.raster(1).key for w in words]
    drawer.release()
    fbo.release()


PAGE = "\n".join(f"line {k}: the quick brown fox jumps over the lazy dog" for k in range(40))


def grown_by_pages(use, pages=14):
    """(bytes the process's Python heap grew by, the pages' raster sizes) after ``use(text)``
    of ``pages`` 40-line texts (18 MB rasters each), each once."""
    import tracemalloc

    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        sizes = [use(f"{PAGE} {t}").coverage.nbytes for t in range(pages)]
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert min(sizes) > 17 << 20 and sum(sizes) > 240 << 20  # the pages are that large
    return grown, max(sizes)


def test_a_text_changing_every_draw_keeps_its_rasters_within_their_bytes():
    """A caption that changes each sub-frame (a log, a subtitle with the time in it) kept
    its last 256 rasters whatever their size, to the process's end: a 4-line one's 1 s
    render held 418 MB after it, a 40-line one's 4.5 GB. Now at most RASTERS_BYTES
    (128 MiB) of them: fourteen 40-line pages (18 MB each) grow the process by less."""
    grown, most = grown_by_pages(text_module.raster)
    assert grown < (128 << 20) + most, f"{grown / 2**20:.0f} MiB kept"
    assert text_module.RASTERS_BYTES == 128 << 20
    newest = text_module.raster(f"{PAGE} 13")
    assert newest is text_module.raster(f"{PAGE} 13")  # kept: drawn once


def test_new_rasters_hand_freed_heap_back_and_kept_ones_do_not(monkeypatch):
    """A counter's text, new every sub-frame, is rasterised anew each time: Pillow's and
    the raster's ~200 KB blocks freed among the scene's small allocations left the heap
    holed, the resident memory growing ~30 KB a sub-frame without end (a 3,000-frame
    render at 4 samples: 291 -> 577 MB). Every TRIM_EVERY new rasters hand the freed heap
    back (hfrender.heap.hand_back); rasters kept, asked again, do not."""

    handed = []
    monkeypatch.setattr(heap, "hand_back", lambda: handed.append(1) or True)
    k = text_module.TRIM_EVERY
    monkeypatch.setattr(text_module, "_made", heap.Every(k))  # (counted from 0)
    text_module._rasters.clear()
    for n in range(3 * k):
        text_module.raster(f"frame {n:05d}")
    assert len(handed) == 3
    for n in range(3 * k):
        text_module.raster(f"frame {n % 5:05d}")  # (5 kept ones)
    assert len(handed) == 3
    for n in range(6 * k):
        text_module.raster(f"again {n:05d}")
    assert len(handed) == 9


@pytest.mark.skipif(not heap._found(), reason="no malloc_trim: not glibc (musl, macOS), "
                    "where hand_back does nothing")
def test_hand_back_returns_freed_heap_pages_here():
    """On glibc (this Linux) the heap's free pages go back to the system: a 64 MB heap of
    1 KB blocks freed but one in 256 (which keeps the heap from shrinking at its top)
    leaves some 64 MB resident until hand_back, under 8 MB after."""

    def rss_mb():
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS")) / 1024

    blocks = [bytearray(1000) for _ in range(64 << 10)]
    pins = blocks[::256]
    before = rss_mb()
    del blocks
    held = rss_mb()
    assert heap.hand_back() is True
    after = rss_mb()
    assert held - after > 40 and after - (before - 64) < 8, (before, held, after)
    del pins
