"""The renderer: OpenGL contexts, programs and drawing sub-frames into hyperframe slots."""
