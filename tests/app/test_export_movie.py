"""MP4 and GIF animations from ``app.export.write_movie`` (no display needed): the files are
valid videos with the expected number of frames, size and content."""

from __future__ import annotations

import numpy as np
import pytest

from app import export
from app.rundata import RunData

WIDTH, HEIGHT = 161, 97  # odd on purpose: H.264 (yuv420p) needs even sizes


def square_run(n: int = 21, t_end: float = 1.0) -> RunData:
    run = RunData(["t", "x"])
    t = np.linspace(0.0, t_end, n)
    run.append(np.column_stack([t, t]))
    return run


def square_frame(run: RunData):
    """A white square that moves left to right with ``x`` on a black frame."""

    def render(index: int) -> np.ndarray:
        image = np.zeros((HEIGHT, WIDTH, 3), dtype=np.uint8)
        left = int(round(run.row(index)[1] * (WIDTH - 30)))
        image[30:60, left : left + 30] = 255
        return image

    return render


def square_left(frame: np.ndarray) -> int:
    columns = np.flatnonzero(frame[30:60].mean(axis=(0, 2)) > 128)
    return int(columns[0])


def test_mp4_is_a_valid_video_with_every_frame_and_the_motion(tmp_path):
    imageio = pytest.importorskip("imageio")
    assert "mp4" in export.movie_formats()
    run = square_run()
    fps, speed = 10, 1.0
    expected = export.movie_times(run, fps, speed)
    assert len(expected) == 11  # 1 s at 10 frames a second, both ends
    path = export.write_movie(tmp_path / "square.mp4", run, square_frame(run), fps=fps)
    assert path.stat().st_size > 0
    with imageio.get_reader(path, format="FFMPEG") as reader:
        meta = reader.get_meta_data()
        frames = [np.asarray(f) for f in reader]
    assert len(frames) == len(expected)
    assert frames[0].shape == (HEIGHT - 1, WIDTH - 1, 3)
    assert meta["fps"] == pytest.approx(fps)
    # the square moves as rendered (H.264 is lossy: a pixel or two of tolerance)
    lefts = [square_left(f) for f in frames]
    wanted = [int(round(run.row(i)[1] * (WIDTH - 30))) for i in expected]
    assert np.abs(np.subtract(lefts, wanted)).max() <= 2
    assert lefts[-1] - lefts[0] > 100


def test_cancelled_mp4_leaves_no_file(tmp_path):
    pytest.importorskip("imageio")
    run = square_run()
    path = tmp_path / "cancelled.mp4"
    with pytest.raises(InterruptedError):
        export.write_movie(path, run, square_frame(run), fps=10, progress=lambda d, n: d < 3)
    assert not path.exists()


def test_gif_has_every_frame(tmp_path):
    from PIL import Image

    run = square_run()
    path = export.write_movie(tmp_path / "square.gif", run, square_frame(run), fps=10)
    with Image.open(path) as gif:
        assert gif.n_frames == len(export.movie_times(run, 10))
        assert gif.size == (WIDTH, HEIGHT)
