"""The wheel a user installs (``pip install .``, or a wheel built from the clone or its
sdist): every module, every file the code reads beside them (the GLSL and CUDA sources,
``hfrender/_shaders`` in the wheel), the ``hfrender`` command, and nothing of the clone's
tests, scenes, examples or virtualenv. Built in-process by hatchling (well under a second)."""

import ast
import re
import zipfile
from pathlib import Path

import pytest

wheel_builder = pytest.importorskip("hatchling.builders.wheel", reason="hatchling ([dev])")

ROOT = Path(__file__).resolve().parents[1]
SHADER_NAME = re.compile(r"^[\w/-]+\.(frag|vert|glsl|cu)$")  # "mesh.vert", "cuda/dof.cu"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    built = wheel_builder.WheelBuilder(str(ROOT)).build(directory=str(out),
                                                        versions=["standard"])
    path = Path(next(iter(built)))
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        info = next(n.split("/")[0] for n in names if ".dist-info/" in n)
        return path, names, z.read(f"{info}/entry_points.txt").decode()


def _named_shaders() -> set[str]:
    """The shader files the code names (``glsl("mesh.vert")``, ``KERNEL_FILES``), as paths
    under ``shaders/``: a bare name is a GLSL file."""
    names = set()
    for py in (ROOT / "hfrender").rglob("*.py"):
        for node in ast.walk(ast.parse(py.read_bytes())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and SHADER_NAME.match(node.value):
                names.add(node.value if "/" in node.value else f"glsl/{node.value}")
    return names


def test_the_wheel_holds_every_module_and_every_shader(wheel):
    _, names, _ = wheel
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "hfrender").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}
    shaders = {f"hfrender/_shaders/{p.relative_to(ROOT / 'shaders').as_posix()}"
               for p in (ROOT / "shaders").rglob("*") if p.is_file()}
    guides = {f"hfrender/_docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    assert "hfrender/py.typed" in modules and "hfrender/_shaders/cuda/dof.cu" in shaders
    assert "hfrender/_docs/rendering.md" in guides  # hfrender docs reads them (no pictures)
    packaged = {n for n in names if n.startswith("hfrender/")}
    assert packaged == modules | shaders | guides


def test_every_shader_the_code_reads_is_in_the_wheel(wheel):
    """Was possible unseen: a shader the code names but ``shaders/`` (and so the wheel)
    lacks works nowhere, one left out of the build works only from a clone."""
    _, names, _ = wheel
    named = _named_shaders()
    assert {"glsl/mesh.vert", "glsl/shadertoy_main.frag", "cuda/fusion.cu"} <= named
    assert {n for n in named if f"hfrender/_shaders/{n}" not in names} == set()
    # the surface shaders found by name: the default (lambert) and the documented toon
    assert {"hfrender/_shaders/glsl/lambert.glsl", "hfrender/_shaders/glsl/toon.glsl"} \
        <= set(names)


def test_the_wheel_has_the_command_and_nothing_of_the_clone(wheel):
    path, names, points = wheel
    info = f"{path.name.split('-py3')[0]}.dist-info/"  # hfrender-0.1.0.dist-info/
    assert {n for n in names if not n.startswith(("hfrender/", info))} == set()
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert "[console_scripts]\nhfrender = hfrender.__main__:run\n" in points
    from hfrender.__main__ import run
    assert callable(run)
    assert path.stat().st_size < 2_000_000  # 0.57 MB: modules and shaders only


def test_the_guides_are_read_from_the_installed_wheel(wheel, tmp_path):
    """Installed, the clone's docs/ is not there: ``hfrender docs`` reads hfrender/_docs."""
    import subprocess
    import sys

    path, _, _ = wheel
    with zipfile.ZipFile(path) as z:
        z.extractall(tmp_path / "site")
    code = ("import hfrender.resources as r, hfrender.cli as c; print(r.docs_dir()); "
            "c.main(['docs', 'rendering', 'groups'])")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, env={"PYTHONPATH": str(tmp_path / "site")}, check=True)
    lines = out.stdout.splitlines()
    assert lines[0] == str(tmp_path / "site" / "hfrender" / "_docs")
    assert lines[1].startswith("- **Groups**: an object's `parent`")
