"""What test_api and test_api_contexts share: the test shader ``BAR`` (a shader scene)."""

from pathlib import Path

BAR = str(Path(__file__).parent / "data" / "bar.frag")
