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


def write_chain(folder, joints=50, name="chain"):
    """``name``.gltf: a strip along x skinned to a chain of ``joints`` joint nodes (each
    0.1 m past its parent, its two vertices following it alone), each joint turning 10
    degrees about y over 1 s (animation "Curl", one channel a joint)."""
    import json
    import math

    header = {"asset": {"version": "2.0"}, "scene": 0,
              "scenes": [{"nodes": [0, joints]}],
              "nodes": [{"name": f"J{j}", "translation": [0.1 * (j > 0), 0.0, 0.0],
                         **({"children": [j + 1]} if j + 1 < joints else {})}
                        for j in range(joints)]}
    header["nodes"].append({"name": "Strip", "mesh": 0, "skin": 0})
    strip = [[0.1 * j, 0.0, z] for j in range(joints) for z in (-0.05, 0.05)]
    faces = [i for j in range(joints - 1)
             for i in (2 * j, 2 * j + 1, 2 * j + 3, 2 * j, 2 * j + 3, 2 * j + 2)]
    inverse = [[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -0.1 * j, 0, 0, 1] for j in range(joints)]
    prim = {"attributes": {
        "POSITION": add_floats(header, strip, "VEC3"),
        "JOINTS_0": add_floats(header, [[j, 0, 0, 0] for j in range(joints) for _ in "ab"],
                               "VEC4", "<u2"),
        "WEIGHTS_0": add_floats(header, [[1.0, 0, 0, 0]] * (2 * joints), "VEC4")},
        "indices": add_floats(header, faces, "SCALAR", "<u2")}
    header["meshes"] = [{"primitives": [prim]}]
    header["skins"] = [{"joints": list(range(joints)),
                        "inverseBindMatrices": add_floats(header, inverse, "MAT4")}]
    s = math.sin(math.radians(5.0))
    times = add_floats(header, [0.0, 1.0], "SCALAR")
    turn = add_floats(header, [[0, 0, 0, 1.0], [0, s, 0, math.sqrt(1 - s * s)]], "VEC4")
    header["animations"] = [{"name": "Curl", "samplers": [{"input": times, "output": turn}],
                             "channels": [{"sampler": 0, "target": {"node": j,
                                                                    "path": "rotation"}}
                                          for j in range(joints)]}]
    path = folder / f"{name}.gltf"
    path.write_text(json.dumps(header))
    return path
