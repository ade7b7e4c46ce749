"""What a fusion process runs in the tests besides the fusion (importable by name there:
a test puts this folder on the child's PYTHONPATH)."""

import time


def sleep(hyper, seconds):
    """A fusion that takes ``seconds`` (a heavy depth of field's hyperframe)."""
    time.sleep(seconds)
