"""Make models/glyphs.npz: the digits 0-9 in a dozen TrueType fonts, as grey masks.

The card renderer (ligretto_vision/sim/render.py) stamps these, so training renders
show many print styles without needing Pillow or fonts at run time.
Run: .venv/bin/python models/make_glyphs.py   (needs the `train` extra: Pillow)
"""
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONTS = ["dejavu/DejaVuSans-Bold", "dejavu/DejaVuSans", "dejavu/DejaVuSansCondensed-Bold", "dejavu/DejaVuSerif-Bold",
         "dejavu/DejaVuSans-BoldOblique", "dejavu/DejaVuSansMono-Bold", "liberation/LiberationSans-Bold",
         "liberation/LiberationSans-Regular", "liberation/LiberationSansNarrow-Bold", "liberation/LiberationSerif-Bold",
         "liberation/LiberationSans-BoldItalic", "liberation/LiberationMono-Bold"]
ROOT = Path("/usr/share/fonts/truetype")
HEIGHT = 64


def glyph(font: ImageFont.FreeTypeFont, d: str) -> np.ndarray:
    img = Image.new("L", (160, 160), 0)
    ImageDraw.Draw(img).text((20, 10), d, fill=255, font=font)
    a = np.array(img)
    ys, xs = np.nonzero(a > 20)
    a = a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    w = max(1, round(a.shape[1] * HEIGHT / a.shape[0]))
    return np.array(Image.fromarray(a).resize((w, HEIGHT), Image.LANCZOS))


def main() -> None:
    out = {}
    fonts = [f for f in FONTS if (ROOT / f"{f}.ttf").exists()]
    for k, name in enumerate(fonts):
        font = ImageFont.truetype(str(ROOT / f"{name}.ttf"), 120)
        for d in "0123456789":
            out[f"d{d}_f{k:02d}"] = glyph(font, d)
    dst = Path(__file__).with_name("glyphs.npz")
    np.savez_compressed(dst, **out)
    print(f"{len(fonts)} fonts -> {dst} ({dst.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
