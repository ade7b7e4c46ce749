"""A parent the scene holds is named as it holds it, in the errors of a parent not added
and of a cycle (hfrender/scene/nodes.py)."""

import pytest
from test_render import write_scene

from hfrender.cli import main

NAMED = """
class Named(hf.Scene):
    duration = 0.2

    def setup(self):
        {setup}
"""


@pytest.mark.parametrize("setup, said", [
    ("self.planet = hf.Sphere(position=(1, 0, 0))\n"
     "        self.moon = self.add(hf.Sphere(radius=0.1, parent=self.planet))",
     "scene error in drawing at t=0 s (output frame 0): InputError: Sphere.parent: "
     "self.planet (a Sphere) is not added to this scene (never added, or another scene's)"),
    ("self.planets = [self.add(hf.Sphere()), hf.Sphere(position=(2, 0, 0))]\n"
     "        self.moon = self.add(hf.Sphere(parent=self.planets[0]))\n"
     "        self.planets[0].parent = self.planets[1]",  # a grandparent, in a list
     "InputError: Sphere.parent: self.planets[1] (a Sphere) is not added to this scene"),
    ("self.sun, self.planet = self.add(hf.Sphere(), hf.Sphere())\n"
     "        self.planet.parent = self.sun\n        self.sun.parent = self.planet",
     "scene error in setup(): InputError: Sphere.parent would be self.planet (a Sphere), "
     "which is placed under this Sphere already: a cycle"),
])
def test_a_parent_the_scene_holds_is_named_as_it_holds_it(tmp_path, capsys, setup, said):
    scene = write_scene(tmp_path, NAMED.format(setup=setup))
    assert main(["still", str(scene), "-o", str(tmp_path / "f.png"), "--size", "32x18",
                 "--samples", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("hfrender: error") == 1, err
