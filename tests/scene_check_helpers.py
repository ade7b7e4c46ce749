"""The scene checks' shared pieces: ``one_line`` (an error's message as one line) and
``NAN``, ``INF``."""

NAN, INF = float("nan"), float("inf")


def one_line(excinfo):
    message = str(excinfo.value)
    assert "\n" not in message
    return message
