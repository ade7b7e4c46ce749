"""The renderer: OpenGL contexts, programs and drawing sub-frames into hyperframe slots.

Its name is also the library's call: ``hf.render(scene, "out.mp4", samples=16)`` is
:func:`hfrender.api.render` (``import hfrender.render.x`` makes ``hf.render`` this package,
so the package is what is called; nothing here depends on it)."""

import sys
import types


class _Package(types.ModuleType):
    def __call__(self, *args: object, **options: object) -> object:
        from hfrender.api import render

        return render(*args, **options)

    @property
    def __signature__(self) -> object:  # help() and IDEs show the call's own
        import inspect

        from hfrender.api import render

        return inspect.signature(render)


sys.modules[__name__].__class__ = _Package
del sys, types
