"""The shared-memory oracle family: generated kernels sized by TileLang and by tilecheck."""
