"""The one engine (producer -> scheduler -> fusion workers -> reorder -> writer) and the
jobs that run on it: render, fx, bench."""
