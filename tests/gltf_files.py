"""A test's glTF file written beside its buffer: ``NAME.gltf`` (``header``, whose buffer is
``NAME.bin``) and ``NAME.bin`` (``blob``)."""

import json


def gltf_written(folder, name, header, blob):
    """``folder``/``name``.gltf and its .bin; returns the .gltf's path."""
    (folder / f"{name}.bin").write_bytes(blob)
    path = folder / f"{name}.gltf"
    path.write_text(json.dumps(header))
    return path
