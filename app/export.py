"""Exports: results CSV (the CLI's writer), plots PNG/SVG, screenshots, animations.

The CSV is written by the solver's own ``Result.to_csv``, so the file is the one
``biela run MODEL --csv OUT`` writes for the same model and settings. Animations are GIF
(Pillow, which pyvista already needs) or MP4 (H.264 through imageio and the ffmpeg binary
that the imageio-ffmpeg package ships; frames are streamed to the encoder as they are
rendered, so a long animation does not pile up in memory).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from app.rundata import RunData

MOVIE_FPS = 25
MOVIE_MAX_WIDTH = 960


def write_csv(result: Any, path: str | Path) -> Path:
    """The results CSV of a run (all frames so far for a failed or stopped run)."""
    path = Path(path)
    result.to_csv(path)
    return path


def movie_formats() -> list[str]:
    """Animation formats this installation can write."""
    formats = []
    if importlib.util.find_spec("PIL") is not None:
        formats.append("gif")
    if (
        importlib.util.find_spec("imageio") is not None
        and importlib.util.find_spec("imageio_ffmpeg") is not None
    ):
        formats.append("mp4")
    return formats


def movie_times(run: RunData, fps: int = MOVIE_FPS, speed: float = 1.0, max_frames: int = 600):
    """Frame indices of an animation at ``fps`` and playback ``speed`` (at most ``max_frames``)."""
    t = run.t
    if len(t) == 0:
        return []
    span = float(t[-1] - t[0])
    count = int(span / speed * fps) + 1
    count = max(1, min(count, max_frames))
    times = np.linspace(float(t[0]), float(t[-1]), count)
    return [run.index_at(x) for x in times]


def write_movie(
    path: str | Path,
    run: RunData,
    render_frame: Callable[[int], np.ndarray],
    fps: int = MOVIE_FPS,
    speed: float = 1.0,
    progress: Callable[[int, int], bool] | None = None,
) -> Path:
    """Render each frame with ``render_frame(index) -> RGB array`` and write GIF or MP4.

    ``progress(done, total)`` may return False to cancel (nothing is written then).
    """
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in movie_formats():
        raise RuntimeError(
            f"cannot write .{fmt} animations here"
            + (" (MP4 needs the imageio and imageio-ffmpeg packages)" if fmt == "mp4" else "")
        )
    indices = movie_times(run, fps, speed)
    if fmt == "mp4":
        _write_mp4(path, indices, render_frame, fps, progress)
        return path
    images = []
    for done, index in enumerate(indices):
        image = render_frame(index)
        images.append(_shrink(image))
        if progress is not None and progress(done + 1, len(indices)) is False:
            raise InterruptedError("cancelled")
    from PIL import Image

    frames = [Image.fromarray(img).quantize(colors=255, dither=Image.Dither.NONE) for img in images]
    frames[0].save(
        path,
        save_all=True,
        append_images=frames[1:],
        duration=max(20, int(round(1000 / fps))),
        loop=0,
    )
    return path


def _write_mp4(path: Path, indices: list[int], render_frame, fps: int, progress) -> None:
    """H.264 (yuv420p, which every player reads): frames cropped to even sizes."""
    import imageio

    done = 0
    try:
        with imageio.get_writer(
            path, format="FFMPEG", fps=fps, codec="libx264", macro_block_size=2
        ) as writer:
            for done, index in enumerate(indices, start=1):
                image = _shrink(render_frame(index))
                h, w = image.shape[:2]
                writer.append_data(np.ascontiguousarray(image[: h - h % 2, : w - w % 2]))
                if progress is not None and progress(done, len(indices)) is False:
                    raise InterruptedError("cancelled")
    except BaseException:
        path.unlink(missing_ok=True)  # no half-written video
        raise


def _shrink(image: np.ndarray) -> np.ndarray:
    image = np.ascontiguousarray(image[..., :3], dtype=np.uint8)
    h, w = image.shape[:2]
    if w <= MOVIE_MAX_WIDTH:
        return image
    from PIL import Image

    scale = MOVIE_MAX_WIDTH / w
    size = (MOVIE_MAX_WIDTH, max(2, int(round(h * scale))))
    return np.asarray(Image.fromarray(image).resize(size, Image.Resampling.LANCZOS))
