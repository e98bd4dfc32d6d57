"""The Messages panel: a time-stamped log of what the workbench did, newest line in view."""

from __future__ import annotations

import time

from PySide6.QtWidgets import QPlainTextEdit, QWidget

MAX_LINES = 2000


class MessagesPanel(QPlainTextEdit):
    """Read-only log; ``log(text)`` appends one stamped line per line of ``text`` and scrolls
    to it (a line appended while the user reads older ones scrolls too: the newest matters)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messages")
        self.setReadOnly(True)
        self.setMaximumBlockCount(MAX_LINES)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)

    def log(self, text: str) -> None:
        stamp = time.strftime("%H:%M:%S")
        for line in text.splitlines() or [""]:
            self.appendPlainText(f"{stamp}  {line}")
        self.scroll_to_end()

    def scroll_to_end(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def lines(self) -> list[str]:
        """The lines without their time stamps (tests, copies)."""
        return [line.partition("  ")[2] for line in self.toPlainText().splitlines()]
