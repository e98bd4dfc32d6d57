"""The main window under a real X server (pytest-xvfb), and the ``biela`` launcher."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

gui = pytest.mark.gui


def image_array(image) -> np.ndarray:
    """A QImage as an (h, w, 3) uint8 RGB array."""
    from PySide6.QtGui import QImage

    image = image.convertToFormat(QImage.Format.Format_RGB888)
    height, width = image.height(), image.width()
    data = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
    # a copy: the array must not outlive the converted image's buffer
    return (
        data.reshape(height, image.bytesPerLine())[:, : 3 * width].reshape(height, width, 3).copy()
    )


def render(qtbot, window) -> None:
    if window.plotter is not None:
        window.plotter.render()
    qtbot.wait(100)


@gui
@pytest.mark.skipif(sys.version_info >= (3, 12), reason="None is immortal from Python 3.12")
def test_qt_binding_keeps_none_reference_count(qapp):
    """PySide6 6.12.0 on Python 3.11 drops a reference to None on every call of a void method,
    so a GUI dies with "Fatal Python error: none_dealloc" after a few thousand calls."""
    from PySide6.QtWidgets import QLabel

    label = QLabel()
    before = sys.getrefcount(None)
    for _ in range(1000):
        label.setText("x")
        qapp.processEvents()
    assert sys.getrefcount(None) - before > -100, "the Qt binding leaks references to None"


# -- the window --------------------------------------------------------------------------------


@gui
def test_window_opens_with_menus_status_bar_and_3d_viewport(main_window):
    from app.image_view import ImageInteractor

    assert main_window.isVisible()
    assert main_window.windowTitle() == "Biela"
    menus = {a.text().replace("&", ""): a.menu() for a in main_window.menuBar().actions()}
    assert list(menus) == ["File", "Edit", "View", "Simulate", "Build", "Help"]
    file_items = [a.text().replace("&", "") for a in menus["File"].actions() if a.text()]
    assert file_items == [
        "New",
        "Open…",
        "Open Recent",
        "Examples",
        "Import…",
        "Save",
        "Save As…",
        "Export",
        "Quit",
    ]
    sim_items = [a.text().replace("&", "") for a in menus["Simulate"].actions() if a.text()]
    assert sim_items[:6] == ["Check", "Assemble", "Run", "Pause", "Stop", "Reset"]
    help_items = [a.text().replace("&", "") for a in menus["Help"].actions()]
    assert help_items == ["Keyboard shortcuts", "About Biela"]
    examples = {a.text(): a.toolTip() for a in main_window.examples_menu.actions()}
    # by the model's title, the file name in the tooltip
    assert examples[
        "Spatial four-bar with motor and spring (Villar Alegría (2018) §3.2, Fourbar3)"
    ] == ("four_bar_spatial.json")
    assert main_window.statusBar().isVisible()
    # Under Xvfb + Mesa there is an OpenGL context: the real viewport, not the explanation.
    assert isinstance(main_window.plotter, ImageInteractor), main_window.viewport.unavailable
    assert main_window.centralWidget().isAncestorOf(main_window.plotter)
    assert "floor_grid" in main_window.plotter.actors
    toolbar_actions = set(main_window.toolbar.actions())
    for action in (main_window.run_action, main_window.pause_action, main_window.stop_action):
        assert action in toolbar_actions
        assert not action.icon().isNull()


@gui
def test_help_about_names_the_program(main_window, message_boxes):
    main_window.about_action.trigger()
    assert [(kind, title) for kind, title, _ in message_boxes] == [("about", "About Biela")]
    main_window.shortcuts_action.trigger()
    assert message_boxes[-1][1] == "Keyboard shortcuts"
    assert "F5" in message_boxes[-1][2]
    assert "biela check MODEL" in message_boxes[0][2]


@gui
def test_open_valid_model_puts_its_name_in_the_title(main_window, pendulum_file, message_boxes):
    assert main_window.open_model(pendulum_file) is True
    assert main_window.windowTitle() == "Pendulum — Biela"
    assert main_window.model is not None
    assert main_window.model.name == "Pendulum"
    assert main_window.model_path == pendulum_file
    assert [m for m in message_boxes if m[0] != "question"] == []


@gui
def test_constructor_opens_model(qtbot, pendulum_file, message_boxes):
    from app.main_window import MainWindow

    window = MainWindow(model_path=str(pendulum_file))
    qtbot.addWidget(window)
    assert window.windowTitle() == "Pendulum — Biela"
    window.close()


@gui
def test_invalid_model_shows_message_and_keeps_current_document(
    main_window, pendulum_file, invalid_model_file, message_boxes
):
    assert main_window.open_model(pendulum_file)
    model_before = main_window.model

    assert main_window.open_model(invalid_model_file) is False

    assert len(message_boxes) == 1
    kind, title, text = message_boxes[0]
    assert kind == "critical"
    assert "Cannot open" in title
    # One line naming the file, the item and the field, not a traceback.
    assert "broken.json" in text
    assert 'joints[0] "bar"' in text
    assert "crank2" in text
    assert "Traceback" not in text
    assert main_window.windowTitle() == "Pendulum — Biela"
    assert main_window.model is model_before
    assert main_window.model_path == pendulum_file


@gui
@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("syntax.json", "{not json"),
        ("missing.json", None),
        ("future.json", "newer-version"),
        ("folder.json", "folder"),
    ],
)
def test_unreadable_files_show_message_without_traceback(
    main_window, tmp_path, pendulum_data, message_boxes, name, content
):
    path = tmp_path / name
    if content == "newer-version":
        path.write_text(json.dumps({**pendulum_data, "biela": 99}), encoding="utf-8")
    elif content == "folder":
        path.mkdir()
    elif content is not None:
        path.write_text(content, encoding="utf-8")

    assert main_window.open_model(path) is False

    assert len(message_boxes) == 1
    _, _, text = message_boxes[0]
    assert name in text
    assert "\n" not in text.strip(), "one line, naming the file"
    assert "Traceback" not in text
    assert main_window.windowTitle() == "Biela"
    assert main_window.model is None


@gui
def test_screenshot_is_not_blank(qtbot, main_window, pendulum_file, screenshot_dir, message_boxes):
    assert main_window.open_model(pendulum_file)
    main_window.resize(1280, 800)
    render(qtbot, main_window)

    pixmap = main_window.grab()
    path = screenshot_dir / "main_window.png"
    assert pixmap.save(str(path), "PNG")
    assert path.stat().st_size > 0

    pixels = image_array(pixmap.toImage()).astype(float)
    assert pixels.var() > 0, "the window screenshot is a single colour"
    # The 3D view itself rendered (a failed GL context composites one flat colour).
    viewport = main_window.plotter
    top_left = viewport.mapTo(main_window, viewport.rect().topLeft())
    ratio = pixmap.devicePixelRatio()
    x0, y0 = int(top_left.x() * ratio), int(top_left.y() * ratio)
    x1, y1 = x0 + int(viewport.width() * ratio), y0 + int(viewport.height() * ratio)
    view = pixels[y0:y1, x0:x1]
    assert view.size > 0
    assert view.var() > 0, "the 3D viewport rendered a single colour"
    # Mostly the view's background colour, with the model drawn over it.
    from PySide6.QtGui import QColor

    from app.theme import BACKGROUND

    background = QColor(BACKGROUND)
    rgb = np.array([background.red(), background.green(), background.blue()], float)
    near = np.abs(view - rgb).max(axis=2) <= 3
    assert 0.5 < near.mean() < 0.999


@gui
def test_run_gui_opens_model_and_returns_when_window_closes(
    qapp, qtbot, pendulum_file, message_boxes, monkeypatch
):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    import app.main_window as main_window_module

    monkeypatch.setattr(main_window_module.signal, "signal", lambda *args: None)
    seen: list[str] = []

    def close_windows():
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, main_window_module.MainWindow) and widget.isVisible():
                seen.append(widget.windowTitle())
                widget.close()

    QTimer.singleShot(300, close_windows)
    QTimer.singleShot(20_000, qapp.quit)  # safety net: never hang the suite
    assert main_window_module.run_gui(str(pendulum_file)) == 0
    assert seen == ["Pendulum — Biela"]


# -- the launcher (no Qt needed) -----------------------------------------------------------


def test_launcher_unknown_option_is_a_usage_error(capsys):
    from app.launcher import main

    assert main(["--no-such-option"]) == 2
    assert "usage: biela" in capsys.readouterr().err


def test_launcher_headless_commands_go_to_solver_cli(pendulum_file, capsys):
    from app.launcher import main

    assert main(["check", str(pendulum_file)]) == 0
    assert main(["--version"]) == 0
    assert "biela" in capsys.readouterr().out


def test_launcher_without_display_explains_instead_of_aborting(monkeypatch, capsys):
    from app.launcher import main

    monkeypatch.setattr(sys, "platform", "linux")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    assert main(["model.json"]) == 1
    assert "no display" in capsys.readouterr().err


def test_launcher_starts_gui_with_model(monkeypatch):
    import app.main_window
    from app.launcher import main

    monkeypatch.setenv("DISPLAY", ":99")
    calls = []
    monkeypatch.setattr(app.main_window, "run_gui", lambda path: calls.append(path) or 0)
    assert main(["model.json"]) == 0
    assert main([]) == 0
    assert calls == ["model.json", None]
