"""ligretto-vision: a camera referee for the card game Ligretto.

Data flows one way, one package per stage:
frames (capture) -> table geometry -> detected cards -> tracked piles -> rules -> events -> panel/log.
"""
__version__ = "0.1.0"

import os as _os

# The referee's linear algebra is on small vectors (a card against an enrolled back, a patch against
# a template): BLAS threads would only wait for each other and for the camera's decoder, which cost
# 4 s of a 30 s replay on two busy cores. One thread, set before numpy loads (a user's setting wins).
_os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
