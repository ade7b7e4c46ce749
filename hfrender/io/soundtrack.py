"""A soundtrack carried into an output: fx's footage's own, or a render's ``--audio`` file
(placed by ``--audio-offset`` and cut to the video's length); the ffmpeg options that read
it and encode it for the container (copied where the container holds its codec)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

# the audio codecs each container holds as they are: a soundtrack in one of them is copied,
# bit for bit (re-encoding AAC into AAC loses a generation); any other is encoded for it
AUDIO_KEPT = {".mp4": {"aac", "mp3", "ac3", "eac3", "alac"},
              ".mov": {"aac", "mp3", "ac3", "eac3", "alac", "pcm_s16le", "pcm_s24le",
                       "pcm_s16be", "pcm_s24be", "pcm_f32le"},
              ".mkv": {"aac", "mp3", "ac3", "eac3", "alac", "opus", "vorbis", "flac",
                       "pcm_s16le", "pcm_s24le", "pcm_f32le"},
              ".webm": {"opus", "vorbis"},
              ".ts": {"aac", "mp3", "ac3", "eac3"}}
LOSSLESS = ("flac", "alac")  # besides PCM: written again, cut to the video's length


@dataclass(frozen=True)
class Soundtrack:
    """A file's audio tracks, to be carried into an output (every one: a camera's channels
    on tracks of their own; was the first alone, a footage trial)."""

    path: str
    codecs: tuple[str, ...] = ()  # as ffmpeg names them ("aac", "pcm_s16le"); none: encoded
    start: float = 0.0  # seconds into the file at the video's time 0; < 0: silence first
    cut: bool = False  # cut to the video's length (a render's --audio; fx keeps it whole)
    length: float | None = None  # that length in seconds, once the video's is known

    def over(self, seconds: float) -> Soundtrack:
        """This soundtrack under a video of ``seconds``: cut to them where it is cut."""
        return replace(self, length=seconds) if self.cut else self


def audio_input(sound: Soundtrack) -> list[str]:
    """The options reading ``sound`` as an input: from its ``start`` for its ``length``
    (a start before the file's: the silence is the filter's, :func:`audio_options`)."""
    before = ["-ss", f"{sound.start:.6f}"] if sound.start > 0 else []
    if sound.length is not None and sound.start >= 0:
        before += ["-t", f"{sound.length:.6f}"]
    return [*before, "-i", sound.path]


def audio_options(sound: Soundtrack, output: str) -> list[str]:
    """``-c:a`` for ``sound`` in ``output``: copied where the container holds every track's
    codec (:data:`AUDIO_KEPT`) and the file plays from its start (PCM, FLAC or ALAC cut to a
    length: written as its own codec, on the sample), else AAC (Opus in WebM);
    a start before the file's is silence put first (``adelay``), cut to the length."""
    suffix = Path(output).suffix.lower()
    if sound.start == 0 and sound.codecs and set(sound.codecs) <= AUDIO_KEPT.get(suffix, set()):
        if sound.length is not None and all(c.startswith("pcm_") or c in LOSSLESS
                                             for c in sound.codecs):
            # PCM, FLAC, ALAC written again as themselves (nothing lost) are cut on the
            # sample; copied, they ran to their packet's end (2.04 s of a WAV, 2.02 s of a
            # FLAC, 2.04 s of an ALAC under a 2.00 s video). A lossy one copied still does
            # (up to a packet, 26 ms): encoded again it would lose a generation
            return [x for i, c in enumerate(sound.codecs) for x in (f"-c:a:{i}", c)]
        return ["-c:a", "copy"]
    codec = ["-c:a", "libopus" if suffix == ".webm" else "aac"]
    if sound.start >= 0:
        return codec
    chain = f"adelay=delays={-sound.start * 1000:.3f}:all=1"
    if sound.length is not None:
        chain += f",atrim=end={sound.length:.6f}"
    return ["-af", chain, *codec]
