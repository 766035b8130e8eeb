"""Draw photo.png: a SYNTHETIC top-down "photo" of the example board (board.toml) on a wooden table, at
1.0 px/mm, board centre at pixel (300, 290), the board's +x axis turned 20 degrees counter-clockwise
from the photo's rightward axis. No real board was photographed; the picture only shows how
`dfsim board-plot --photo` lines a board file up with a photo. Run from the repository root:
    python examples/measured-board/make_photo.py
"""

from __future__ import annotations

import math
from pathlib import Path

import imageio.v3 as iio
import numpy as np
from scipy.ndimage import gaussian_filter

from sim.specs.board import load_board

HERE = Path(__file__).resolve().parent
SCALE, CENTRE, ROTATE = 1.0, (300.0, 290.0), 20.0
W, H = 600, 580
COLOURS = {1: (230, 190, 120), 2: (215, 150, 80), 3: (205, 110, 60), 4: (190, 80, 45), 5: (170, 50, 40),
           6: (150, 35, 35), 10: (240, 220, 90)}


def main() -> None:
    board = load_board(HERE / "board.toml")
    cols, rows = np.meshgrid(np.arange(W) + 0.5, np.arange(H) + 0.5)
    # pixel -> board frame (the inverse of sim.viewer.board_plot.PhotoFrame.to_px)
    u, v = (cols - CENTRE[0]) / SCALE, -(rows - CENTRE[1]) / SCALE
    a = math.radians(ROTATE)
    x, y = u * math.cos(a) + v * math.sin(a), -u * math.sin(a) + v * math.cos(a)
    grain = 0.5 + 0.5 * np.sin(0.08 * rows + 3 * np.sin(0.01 * cols))
    img = np.stack([120 + 30 * grain, 80 + 20 * grain, 45 + 10 * grain], axis=-1)  # the table: wood
    regions = board.regions_at(np.column_stack([x.ravel(), y.ravel()]) * 1e-3)
    flat = img.reshape(-1, 3)
    for i, r in enumerate(regions):
        if r.kind == "section":
            flat[i] = COLOURS.get(r.value, (200, 200, 200))
        elif r.kind == "bones":
            flat[i] = (235, 228, 210)
        elif r.kind == "hole":
            flat[i] = flat[i] * 0.55  # the table seen through the hole, in the board's shadow
    img = flat.reshape(H, W, 3)
    img = gaussian_filter(img, sigma=(1.0, 1.0, 0))
    iio.imwrite(HERE / "photo.png", np.clip(img, 0, 255).astype(np.uint8))


if __name__ == "__main__":
    main()
