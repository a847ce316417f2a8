"""One module per paper statement; each defines ``OBLIGATION``."""
