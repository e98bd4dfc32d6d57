"""Toolbar icons: Qt's standard icons where one fits, small painted ones otherwise."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import QStyle, QWidget

STANDARD = {
    "new": QStyle.StandardPixmap.SP_FileIcon,
    "open": QStyle.StandardPixmap.SP_DialogOpenButton,
    "save": QStyle.StandardPixmap.SP_DialogSaveButton,
    "run": QStyle.StandardPixmap.SP_MediaPlay,
    "pause": QStyle.StandardPixmap.SP_MediaPause,
    "stop": QStyle.StandardPixmap.SP_MediaStop,
    "reset": QStyle.StandardPixmap.SP_MediaSkipBackward,
    "help": QStyle.StandardPixmap.SP_DialogHelpButton,
}

INK = QColor("#2b3440")
ACCENT = QColor("#2f6fb3")
GOOD = QColor("#2e8b57")


def icon(name: str, widget: QWidget) -> QIcon:
    """The icon called ``name`` (see ``STANDARD`` and ``_PAINTERS``)."""
    if name in STANDARD:
        return widget.style().standardIcon(STANDARD[name])
    painter_fn = _PAINTERS.get(name)
    if painter_fn is None:
        return QIcon()
    pixmap = QPixmap(32, 32)
    pixmap.fill(Qt.GlobalColor.transparent)
    p = QPainter(pixmap)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter_fn(p)
    p.end()
    return QIcon(pixmap)


def _pen(p: QPainter, color: QColor = INK, width: float = 2.2) -> None:
    pen = QPen(color, width)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    p.setPen(pen)


def _cube(p: QPainter, front_only: bool = False) -> None:
    _pen(p)
    p.setBrush(QColor(47, 111, 179, 60))
    if front_only:
        p.drawRect(QRectF(7, 7, 18, 18))
        return
    front = QPolygonF([QPointF(5, 12), QPointF(19, 12), QPointF(19, 26), QPointF(5, 26)])
    top = QPolygonF([QPointF(5, 12), QPointF(12, 5), QPointF(26, 5), QPointF(19, 12)])
    side = QPolygonF([QPointF(19, 12), QPointF(26, 5), QPointF(26, 19), QPointF(19, 26)])
    for poly in (front, top, side):
        p.drawPolygon(poly)


def _iso(p: QPainter) -> None:
    _cube(p)


def _front(p: QPainter) -> None:
    _cube(p, front_only=True)
    _pen(p, ACCENT, 2.5)
    p.drawLine(QPointF(16, 12), QPointF(16, 20))


def _top(p: QPainter) -> None:
    _cube(p, front_only=True)
    _pen(p, ACCENT, 2.5)
    p.drawEllipse(QPointF(16, 16), 3, 3)


def _side(p: QPainter) -> None:
    _cube(p, front_only=True)
    _pen(p, ACCENT, 2.5)
    p.drawLine(QPointF(12, 16), QPointF(20, 16))


def _fit(p: QPainter) -> None:
    _pen(p)
    for x, y, dx, dy in ((4, 4, 1, 1), (28, 4, -1, 1), (4, 28, 1, -1), (28, 28, -1, -1)):
        p.drawLine(QPointF(x, y), QPointF(x + 7 * dx, y))
        p.drawLine(QPointF(x, y), QPointF(x, y + 7 * dy))
    p.setBrush(QColor(47, 111, 179, 90))
    p.drawEllipse(QPointF(16, 16), 6, 6)


def _check(p: QPainter) -> None:
    _pen(p, GOOD, 3.5)
    path = QPainterPath(QPointF(6, 17))
    path.lineTo(13, 24)
    path.lineTo(26, 8)
    p.drawPath(path)


def _assemble(p: QPainter) -> None:
    _pen(p, INK, 2.4)
    p.drawLine(QPointF(6, 24), QPointF(14, 10))
    p.drawLine(QPointF(14, 10), QPointF(26, 14))
    p.setBrush(QColor("#f2c14e"))
    for x, y in ((6, 24), (14, 10), (26, 14)):
        p.drawEllipse(QPointF(x, y), 3.2, 3.2)


def _screenshot(p: QPainter) -> None:
    _pen(p)
    p.setBrush(QColor(47, 111, 179, 50))
    p.drawRoundedRect(QRectF(4, 9, 24, 17), 3, 3)
    p.drawRect(QRectF(11, 5, 10, 4))
    p.drawEllipse(QPointF(16, 17), 5, 5)


def _plot(p: QPainter) -> None:
    _pen(p, INK, 2)
    p.drawLine(QPointF(5, 4), QPointF(5, 27))
    p.drawLine(QPointF(5, 27), QPointF(28, 27))
    _pen(p, ACCENT, 2.4)
    path = QPainterPath(QPointF(6, 22))
    path.cubicTo(QPointF(11, 6), QPointF(16, 26), QPointF(27, 8))
    p.drawPath(path)


_PAINTERS = {
    "iso": _iso,
    "front": _front,
    "top": _top,
    "side": _side,
    "fit": _fit,
    "check": _check,
    "assemble": _assemble,
    "screenshot": _screenshot,
    "plot": _plot,
}
