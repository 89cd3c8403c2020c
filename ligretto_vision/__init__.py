"""ligretto-vision: a camera referee for the card game Ligretto.

Data flows one way, one package per stage:
frames (capture) -> table geometry -> detected cards -> tracked piles -> rules -> events -> panel/log.
"""
__version__ = "0.1.0"
