hfrender: error: input not found: clip.mp4
