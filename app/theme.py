"""Colours and the application style: one place for the look of the workbench."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

# 3D view (z or −g up): a dark blue-grey that makes coloured bodies stand out. One colour, not
# a gradient: the gradient quad costs ≈ 9 ms a frame under Mesa's software OpenGL (measured).
BACKGROUND = "#343b47"
BACKGROUND_BOTTOM = "#1f242c"
BACKGROUND_TOP = "#4a5363"
FLOOR_COLOR = "#5d6775"  # opaque: a translucent grid is slow in software OpenGL
JOINT_COLOR = "#d7dce2"
SPRING_COLOR = "#f2c14e"
CONTACT_COLOR = "#9ecae1"
MARKER_COLOR = "#ffffff"
HIGHLIGHT_COLOR = "#ffe14d"
#: Bodies without a colour of their own (ColorBrewer Dark2).
BODY_PALETTE = ("#d95f02", "#7570b3", "#1b9e77", "#e7298a", "#66a61e", "#e6ab02", "#a6761d")
#: Traces of output points and extra plot curves.
TRACE_PALETTE = ("#ff7f0e", "#17becf", "#e377c2", "#bcbd22", "#8c564b", "#9467bd", "#2ca02c")

# Plots: white background, dark axes, one colour per energy.
PLOT_BACKGROUND = "#ffffff"
PLOT_FOREGROUND = "#202428"
PLOT_GRID_ALPHA = 0.25
ENERGY_COLORS = {
    "kinetic": "#d62728",
    "potential": "#1f77b4",
    "elastic": "#2ca02c",
    "work": "#9467bd",
    "total": "#111111",
}
CONSTRAINT_COLORS = {"position": "#e6550d", "velocity": "#3182bd"}
CURSOR_COLOR = "#c0392b"


def apply_style(app: QApplication) -> None:
    """Fusion style with a calm light palette and a readable default font size."""
    app.setStyle("Fusion")
    palette = QPalette()
    base = QColor("#f4f5f7")
    palette.setColor(QPalette.ColorRole.Window, base)
    palette.setColor(QPalette.ColorRole.WindowText, QColor("#1d2127"))
    palette.setColor(QPalette.ColorRole.Base, QColor("#ffffff"))
    palette.setColor(QPalette.ColorRole.AlternateBase, QColor("#eef0f3"))
    palette.setColor(QPalette.ColorRole.ToolTipBase, QColor("#ffffe8"))
    palette.setColor(QPalette.ColorRole.ToolTipText, QColor("#1d2127"))
    palette.setColor(QPalette.ColorRole.Text, QColor("#1d2127"))
    palette.setColor(QPalette.ColorRole.Button, QColor("#e9ebef"))
    palette.setColor(QPalette.ColorRole.ButtonText, QColor("#1d2127"))
    palette.setColor(QPalette.ColorRole.Highlight, QColor("#2f6fb3"))
    palette.setColor(QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
    palette.setColor(QPalette.ColorRole.Link, QColor("#2f6fb3"))
    # Disabled controls look disabled (the colours above are set for every state).
    disabled = QPalette.ColorGroup.Disabled
    for role in (
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
    ):
        palette.setColor(disabled, role, QColor("#9aa1ab"))
    palette.setColor(disabled, QPalette.ColorRole.Base, QColor("#f0f1f3"))
    app.setPalette(palette)
    font = QFont(app.font())
    if font.pointSizeF() < 9.5:
        font.setPointSizeF(9.5)
    app.setFont(font)
    app.setStyleSheet(
        """
        QDockWidget::title { background: #dfe3e8; padding: 4px 6px; font-weight: 600; }
        QToolBar { spacing: 3px; border: none; }
        QStatusBar QLabel { padding: 0 6px; }
        QGroupBox { font-weight: 600; margin-top: 8px; }
        QGroupBox::title { subcontrol-origin: margin; left: 6px; padding: 0 3px; }
        """
    )
