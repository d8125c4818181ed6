"""Rules about TileLang kernels (`import tilelang.language as T`)."""
