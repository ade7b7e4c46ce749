"""The io stage: ffmpeg command lines (pure), the footage reader, the writers, segments."""
