"""Arrays from other libraries in, the same library's arrays out.

NumPy arrays pass through untouched. Host objects that speak DLPack (torch CPU
tensors, JAX CPU arrays, ...) are viewed as NumPy without a copy, and results go back
through the same library's ``from_dlpack``. Device arrays (CuPy, CUDA tensors) belong
to the CUDA backend.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from hfrender.errors import BackendUnavailable, InputError, InputTypeError
from hfrender.numeric import a_number, number_said, real_number

DLPACK_CPU = 1


def is_device_array(x: Any) -> bool:
    """True for arrays that live on a GPU (CuPy, CUDA tensors through DLPack)."""
    if hasattr(x, "__cuda_array_interface__"):
        return True
    if hasattr(x, "__dlpack_device__") and not isinstance(x, np.ndarray):
        try:
            return int(x.__dlpack_device__()[0]) != DLPACK_CPU
        except Exception:
            return False
    return False


def to_array(x: Any, name: str) -> tuple[Any, Callable[[Any], Any], bool]:
    """``(array, back, on_device)``: NumPy for host data, CuPy for GPU data (no copy)."""
    if is_device_array(x):
        return (*_to_cupy(x, name), True)
    arr, back = to_numpy(x, name)
    return arr, back, False


def _to_cupy(x: Any, name: str) -> tuple[Any, Callable[[Any], Any]]:
    try:
        import cupy
    except ImportError:
        raise BackendUnavailable(
            f"{name} is a GPU array ({type(x).__module__}.{type(x).__name__}) but CuPy is not "
            "installed: pip install 'hfrender[cuda]', or pass a NumPy array") from None
    if isinstance(x, cupy.ndarray):
        return x, _same
    try:
        if hasattr(x, "__cuda_array_interface__"):
            return cupy.asarray(x), _converter_for(x)  # a view of the same device memory
        return cupy.from_dlpack(x), _converter_for(x)
    except Exception as exc:  # no driver, no device, another device type
        raise BackendUnavailable(f"{name} is a GPU array ({type(x).__module__}."
                                 f"{type(x).__name__}) but CUDA cannot be used here: "
                                 f"{exc}") from None


def to_numpy(x: Any, name: str) -> tuple[np.ndarray, Callable[[np.ndarray], Any]]:
    """``(array, back)``: a NumPy view of ``x`` and a function that converts results back."""
    if isinstance(x, np.ndarray):
        return native(unmasked(x, name)), _same
    if is_device_array(x):
        raise BackendUnavailable(
            f"{name} is a GPU array ({type(x).__module__}.{type(x).__name__}); this call "
            "takes host arrays: pass a NumPy array (cupy.asnumpy(x) or tensor.cpu())"
        )
    if hasattr(x, "__dlpack__"):
        try:
            arr = np.from_dlpack(x)
        except (BufferError, RuntimeError, TypeError) as exc:
            why = str(exc).strip().rstrip(".")
            raise InputTypeError(
                f"{name} ({type(x).__module__}.{type(x).__name__}) cannot be read "
                f"through DLPack: {why}{_dlpack_hint(x, why)}") from None
        return native(arr), _converter_for(x)
    if isinstance(x, (list, tuple)):
        return _listed(x, name)
    view = _buffer(x)
    if view is not None:  # a memoryview, ...: its shape and format (was refused)
        return native(view), _same
    stream = (" (frames one at a time: numpy.stack(list(frames)), or hf.HyperFrameBuilder to "
              "blend a stream as it comes)" if isinstance(x, Iterator) else "")
    listed = ("a list of (H, W) depth frames or of rows of metres" if name.startswith("depth")
              else "a list of frames")  # (was: depth offered "a list of NumPy frames")
    raise InputTypeError(
        f"{name} must be a NumPy array, an object with __dlpack__ (torch, JAX, CuPy) or the "
        f"buffer protocol (memoryview), or {listed}; got {type(x).__module__}."
        f"{type(x).__name__}{stream}")


def _listed(x: list | tuple, name: str) -> tuple[np.ndarray, Callable[[np.ndarray], Any]]:
    """A list of frames (NumPy arrays, or host arrays of one other library: torch tensors,
    each read as one is, the result of their library; was refused with a torch.stack
    hint), or for depth nested lists of numbers, read as velocity's are
    (:func:`real_numbers`; frames' numbers need their pixel dtype, which no list has)."""
    if not x:
        raise InputError(f"{name} is an empty {type(x).__name__}: give at least one frame")
    depth = name.startswith("depth")
    if all(isinstance(f, np.ndarray) for f in x):
        return _stacked(list(x), name), _same
    if all(isinstance(f, np.ndarray) or hasattr(f, "__dlpack__") for f in x):
        kinds = list(dict.fromkeys(_kind(f) for f in x))
        if len(kinds) > 1:  # (the result's kind would be a guess)
            raise InputTypeError(f"{name} is a list of {' and '.join(kinds[:2])}; give frames "
                                 "of one kind (the result is of their kind)")
        if is_device_array(x[0]):
            raise InputTypeError(f"{name} is a list of GPU arrays ({kinds[0]}); stack them into "
                                 f"one ({kinds[0].split('.')[0]}.stack({name})) to blend them "
                                 "on the GPU")
        arrs = [to_numpy(f, f"{name}[{i}]")[0] for i, f in enumerate(x)]
        return _stacked(arrs, name), _converter_for(x[0])
    metres = named_numbers(x, name) if depth else None
    if metres is not None:
        return metres, _same
    if depth:  # (was: 'a list holding builtins.list', where rows were given)
        grad_free(x, name, deep=True)  # (ragged rows: NumPy stopped before meeting one)
        raise InputTypeError(not_numbers(x, name, "metres", "an array of metres "
                                         "(np.asarray(depth, np.float32))"))
    item = next(f for f in x if not (isinstance(f, np.ndarray) or hasattr(f, "__dlpack__")))
    raise InputTypeError(f"{name} is a {type(x).__name__} holding {_kind(item)}; a list takes "
                         "frames: give an array of a pixel type (np.asarray(frames, np.uint8))")


def not_numbers(value: Any, name: str, unit: str, wanted: str) -> str:
    """One line for ``value`` given as ``name`` holding no real numbers, said alike for
    depth, velocity and shifts: ``depth is a list of str; depth takes numbers (metres):
    give an array of metres (...)``; ``unit``: what the numbers are, ``wanted``: what to
    give (was velocity's "has dtype <U1; expected real numbers, ...", a wording of its own)."""
    # (a class given by mistake, np.uint8, has a dtype of its own: "a type of generic'
    # objects>", was)
    dtype = None if isinstance(value, type) else getattr(value, "dtype", None)
    kind = type(value).__name__ if type(value).__module__ == "builtins" else _kind(value)
    if value is None:
        held = "None"
    elif isinstance(value, (list, tuple)):
        held = f"a {kind} {_found(value)}"
    elif isinstance(dtype, np.dtype):
        held = f"an array of {_dtype_word(dtype)}"
    elif dtype is not None:  # (a tensor: torch.complex64 said as 'complex64'; was its kind)
        held = f"{_a(kind)} of {str(dtype).rsplit('.', 1)[-1]}"
    else:
        held = _a(kind)
    return f"{name} is {held}; {name} takes numbers ({unit}): give {wanted}"


def _a(word: str) -> str:
    """``word`` after its article: 'an ellipsis', 'a torch.Tensor' (was 'a ellipsis')."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def _found(x: list | tuple) -> str:
    """What nested lists that are not real numbers hold, in words: NumPy's dtype of them
    ('of str', 'of complex128'), else the first item that is not a real number
    (:func:`_odd`: 'of bool' among ints, 'holding None'), else 'of rows of unequal
    lengths' (ragged) or 'of numbers NumPy holds as objects' (Fractions, ints past
    int64)."""
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError):  # (ragged)
        arr = None
    if arr is not None and arr.dtype.kind != "O":  # ([True, 1]: int64, a bool in it)
        return arr.dtype.kind in "iuf" and _first_odd(x, True) or f"of {_dtype_word(arr.dtype)}"
    return _first_odd(x) or ("of rows of unequal lengths" if arr is None else
                            "of numbers NumPy holds as objects")


def _first_odd(x: list | tuple, read: bool = False) -> str | None:
    """:func:`_odd` of the first item of nested lists that is not a real number, None if
    all are; ``read``: NumPy read them as numbers (its ints fit int64: none past float's)."""
    if _plain(x, read):
        return None
    for item in x:
        odd = _first_odd(item, read) if isinstance(item, (list, tuple)) else _odd(item)
        if odd:
            return odd
    return None


def _plain(row: list | tuple, read: bool) -> bool:
    """``row`` all Python floats and ints that float holds, at once (a 1080p depth's rows in
    ~60 ms): each int at most the sum of their sizes, a real number (past float's range:
    OverflowError), unless ``read``."""
    kinds = set(map(type, row))
    if not kinds <= {float, int}:
        return False
    try:
        return read or int not in kinds or real_number(sum(map(abs, row)))
    except OverflowError:
        return False


def _odd(item: object) -> str | None:
    """None for a real number (:func:`real_number`) or an array of them, else what a list
    holding it is, in words: 'holding' its value where it is a number refused for it
    ("holding Decimal('sNaN')", a 401-digit int; was 'rows of unequal lengths') or None,
    'of' its dtype for an array, else of its type ('of bool', 'of numpy.bool')."""
    if real_number(item):
        return None
    if item is None or a_number(item):
        return f"holding {number_said(item)}"
    if isinstance(item, np.ndarray) or hasattr(item, "__dlpack__"):  # (a tensor of numbers)
        if real_numbers(item) is not None:
            return None
        if isinstance(item, np.ndarray):
            return f"of {_dtype_word(item.dtype)}"
    return f"of {type(item).__name__ if type(item).__module__ == 'builtins' else _kind(item)}"


def _dtype_word(dtype: np.dtype) -> str:
    return {"U": "str", "S": "bytes", "b": "bool"}.get(dtype.kind, dtype.name)


def _stacked(arrs: list[np.ndarray], name: str) -> np.ndarray:
    """Frames of a list as one array, in this machine's byte order (a '>u2' frame beside
    uint16 ones: their values; was refused); else one line naming the first that differs."""
    kinds = [(f.shape, f.dtype.newbyteorder("=")) for f in arrs]
    if len(set(kinds)) > 1:
        bad = next(i for i, k in enumerate(kinds) if k != kinds[0])
        raise InputError(f"{name}: all frames of a list must share shape and dtype; frame 0 "
                         f"is {arrs[0].dtype} {arrs[0].shape}, frame {bad} is {arrs[bad].dtype} "
                         f"{arrs[bad].shape}")
    if any(isinstance(f, np.ma.MaskedArray) for f in arrs):
        return native(unmasked(np.ma.stack(arrs), name))
    return native(np.stack(arrs))


def real_numbers(value: Any) -> np.ndarray | None:
    """``value`` as NumPy reads it where that is real numbers (Fractions and Decimals as
    float64), else None (strings, None, complex, a ragged list): an object array's items
    and nested lists' by :func:`real_number` (was: [True, 1.0] read as [1.0, 1.0], and
    [10**400] an OverflowError, each refused alone)."""
    try:
        arr = np.asarray(value)
        if arr.dtype.kind == "O" and all(map(real_number, arr.ravel())):
            arr = arr.astype(np.float64)
    except (TypeError, ValueError):
        return None
    if arr.dtype.kind not in "iuf":
        return None
    return None if isinstance(value, (list, tuple)) and _first_odd(value, True) else arr


def named_numbers(value: Any, name: str) -> np.ndarray | None:
    """:func:`real_numbers`, where a tensor that requires grad deep in nested lists (which
    NumPy met: torch's RuntimeError, a traceback) is :func:`grad_free`'s line naming it."""
    try:
        return real_numbers(value)
    except RuntimeError:
        grad_free(value, name, deep=True)
        raise


def grad_free(value: object, name: str, deep: bool = False) -> None:
    """A torch tensor that requires grad, given for numbers that are only read (velocity,
    weights, a shutter, a focus pull), is one line naming it (was: torch's RuntimeError
    from inside ``np.asarray``, a traceback); in a list or tuple, the first item that does,
    by its index (``weights[1]``; was looked past). ``deep``: in nested lists too (looked
    into where NumPy met one: a velocity's rows would cost seconds a 1080p frame)."""
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            if type(item) not in (float, int) and (deep or type(item) not in (list, tuple)):
                grad_free(item, f"{name}[{i}]", deep)
    if getattr(value, "requires_grad", False) is True:
        kind = f"{type(value).__module__.split('.')[0]}.{type(value).__name__}"
        raise InputTypeError(f"{name} ({kind}) requires grad: pass {name}.detach() (its "
                             "values are read; no gradient flows back)")


def _kind(x: Any) -> str:
    return f"{type(x).__module__}.{type(x).__name__}"


def _buffer(x: Any) -> np.ndarray | None:
    """``x`` as NumPy reads an object with the buffer protocol (a memoryview of frames, a
    NumPy scalar): an array of its shape and format, no copy; None for one without."""
    try:
        return np.asarray(memoryview(x))
    except (TypeError, ValueError, NotImplementedError):  # no buffer, a format NumPy lacks
        return None


def few_numbers(x: Any, name: str) -> np.ndarray | None:
    """A few numbers given as an array or tensor (a focus pixel, a focus pull) as NumPy: a
    host array's as np.asarray reads it, a GPU tensor's or CuPy array's through its
    ``tolist()``, a copy of a handful of numbers (was: torch's TypeError "can't convert
    cuda:0 device type tensor to numpy", a traceback); None where neither reads it (a meta
    tensor: :func:`unread` says so). Values masked, :func:`unmasked`'s line."""
    unmasked(x, name)
    for read in (np.asarray, lambda a: np.asarray(a.tolist())):
        try:
            return np.ma.getdata(read(x))
        except (TypeError, RuntimeError, ValueError, NotImplementedError, AttributeError):
            pass
    return None


def unread(x: Any, name: str) -> str:
    """The end of a line refusing ``x``, whose values cannot be read where they are (a meta
    tensor; was torch's TypeError or RuntimeError, a traceback): ' on meta: give
    focus_pixel.cpu()'."""
    device = getattr(x, "device", None)
    where = "" if device is None else f" on {getattr(device, 'type', device)}"
    return f"{where}: give {name}.cpu()"


def unmasked(x: Any, name: str) -> Any:
    """A NumPy masked array with values masked is one line: hfrender reads every value,
    the masked ones too (was: read through its mask without a word, a depth's holes or a
    flow's occlusions blurred as the numbers under them). One with none masked is its
    values, a plain ndarray (was: passed on as a MaskedArray); anything else ``x``."""
    if not isinstance(x, np.ma.MaskedArray):
        return x
    count = int(np.ma.getmaskarray(x).sum())
    if not count:
        return np.ma.getdata(x)
    raise InputError(f"{name} is a masked array with {count} of {x.size} values masked; "
                     f"hfrender reads every value, the masked ones too: give {name}.filled(v), "
                     "v what they stand for")


def _dlpack_hint(x: Any, why: str) -> str:
    """What to do when DLPack refuses ``x`` (``why``: its reason), where it does not say."""
    if getattr(x, "requires_grad", False):
        return "" if "detach" in why else " (a tensor that requires grad: pass .detach())"
    if "dtype" in why.lower():
        return " (a dtype NumPy has not, such as bfloat16: convert it first, e.g. .float())"
    return ""


def _same(a: np.ndarray) -> np.ndarray:
    return a


def native(a: np.ndarray) -> np.ndarray:
    """Big-endian data (from files written elsewhere) in this machine's byte order."""
    if a.dtype.byteorder not in ("=", "|") and not a.dtype.isnative:
        return a.astype(a.dtype.newbyteorder("="))
    return a


# array types whose own top-level module has no from_dlpack
_DLPACK_HOME = {"jaxlib": "jax.numpy", "jax": "jax.numpy"}


def _converter_for(x: Any) -> Callable[[np.ndarray], Any]:
    top = type(x).__module__.split(".")[0]
    try:
        from_dlpack = importlib.import_module(_DLPACK_HOME.get(top, top)).from_dlpack
    except (ImportError, AttributeError):
        return _same
    return from_dlpack
