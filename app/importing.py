"""File ▸ Import: a MUBODYNA model folder, an MJCF (.xml) or a URDF file becomes a Biela
model file (``solver.import_model``, as ``biela import``), which the workbench then opens.

The imported model is saved first (beside its source by default) because mesh files are
written next to it. Warnings (what was left out) go to the log, one line each; a file that
cannot be imported is refused with the importer's one-line message.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from solver import ModelError, import_model, write_imported

SOURCE_FILTER = "MJCF or URDF (*.xml *.urdf *.mjcf);;All files (*)"


def ask_source(parent: QWidget, start: Path) -> Path | None:
    """A MUBODYNA folder or an MJCF/URDF file, chosen in a dialog (folder first)."""
    box = QMessageBox(parent)
    box.setWindowTitle("Import model")
    box.setText("Import a MUBODYNA model folder, or an MJCF or URDF file?")
    folder = box.addButton("MUBODYNA folder…", QMessageBox.ButtonRole.AcceptRole)
    file = box.addButton("MJCF / URDF file…", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    if box.clickedButton() is folder:
        path = QFileDialog.getExistingDirectory(parent, "MUBODYNA model folder", str(start))
    elif box.clickedButton() is file:
        path, _ = QFileDialog.getOpenFileName(
            parent, "MJCF or URDF file", str(start), SOURCE_FILTER
        )
    else:
        return None
    return Path(path) if path else None


def import_into(window, source: Path | None = None, target: Path | None = None) -> bool:
    """Import ``source`` (asked for when ``None``), save it as ``target`` (asked for when
    ``None``) and open it in ``window``. Returns whether a model was opened."""
    if window.runner.running or not window.maybe_save():
        return False
    start = window.document.path.parent if window.document.path else Path.cwd()
    source = source or ask_source(window, start)
    if source is None:
        return False
    try:
        imported = import_model(source)
    except ModelError as exc:
        window.log_message(f"cannot import {source}: {exc}")
        QMessageBox.critical(window, "Cannot import model", str(exc))
        return False
    if target is None:
        default = (source.parent if source.is_file() else source.parent) / f"{source.stem}.json"
        path, _ = QFileDialog.getSaveFileName(
            window, "Save the imported model as", str(default), "Biela models (*.json)"
        )
        if not path:
            return False
        target = Path(path if path.endswith(".json") else path + ".json")
    try:
        write_imported(imported, target)
    except OSError as exc:
        QMessageBox.critical(window, "Cannot save model", f"{target.name}: {exc.strerror}")
        return False
    opened = window.open_model(target, ask=False)
    # logged after opening: a new model starts with a clean Messages panel
    window.log_message(f"imported {source} as {target}")
    for warning in imported.warnings:
        window.log_message(f"  warning: {warning}")
    if not opened:
        return False
    left_out = f" ({len(imported.warnings)} warnings in the log)" if imported.warnings else ""
    window.statusBar().showMessage(f"Imported {source.name}{left_out}", 10_000)
    return True
