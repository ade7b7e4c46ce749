"""What the depth-of-field tests share: ``_told``, the warnings a call gave (less a
ResourceWarning of an earlier test's file closed during it)."""


def _told(caught):
    """The warnings a call gave: not a ResourceWarning of an earlier test's file that the
    garbage collector happened to close during it."""
    return [w for w in caught if w.category is not ResourceWarning]
