"""A test's glTF file written beside its buffer: ``NAME.gltf`` (``header``, whose buffer is
``NAME.bin``) and ``NAME.bin`` (``blob``)."""

import json


def gltf_written(folder, name, header, blob):
    """``folder``/``name``.gltf and its .bin; returns the .gltf's path."""
    (folder / f"{name}.bin").write_bytes(blob)
    path = folder / f"{name}.gltf"
    path.write_text(json.dumps(header))
    return path


def add_floats(header, values, kind, dtype="<f4"):
    """An accessor of ``values`` (rows of ``kind``: "SCALAR", "VEC3", ...; float32, or
    ``dtype`` "<u2": unsigned shorts) added to ``header`` in a buffer of its own (a data
    URI); returns its index."""
    import base64

    import numpy as np

    data = np.asarray(values, dtype)
    width = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}[kind]
    blob = data.tobytes()
    buffers, views = header.setdefault("buffers", []), header.setdefault("bufferViews", [])
    accessors = header.setdefault("accessors", [])
    buffers.append({"uri": "data:application/octet-stream;base64,"
                    + base64.b64encode(blob).decode(), "byteLength": len(blob)})
    views.append({"buffer": len(buffers) - 1, "byteLength": len(blob)})
    rows = data.reshape(-1, width)
    accessors.append({"bufferView": len(views) - 1,
                      "componentType": 5126 if dtype == "<f4" else 5123, "count": len(rows),
                      "type": kind, "min": rows.min(0).tolist(), "max": rows.max(0).tolist()})
    return len(accessors) - 1
