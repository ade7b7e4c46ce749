"""A small white card before the focus plane over a black sky: the sky's blur smaller than
the card's, so what a lens sees past the card's edge is hidden behind the card in the depth
pass (``benchmarks/dof_vs_lens.py``; a depth-of-field trial's scene, 2026-12-05).

    hfrender still benchmarks/scenes/card_over_sky.py --dof depth --hdr on -o card.exr
"""

import hfrender as hf


class CardOverSky(hf.Scene):
    duration = 0.1
    background = (0.0, 0.0, 0.0)

    def setup(self):
        self.add(hf.Cube(scale=(0.03, 0.03, 0.002), position=(0.0, 0.0, 2.0),
                         color=(1.0, 1.0, 1.0), emissive=1.0))  # 1 m from the camera
        self.camera.position = (0, 0, 3)
        self.camera.look_at((0, 0, 0))
        self.camera.focal_length_mm = 50
        self.camera.f_stop = 1.4
        self.camera.focus_distance = 2.67
