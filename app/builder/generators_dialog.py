"""Build ▸ Generators: common mechanisms with their parameters, as a new model.

The models come from ``solver.generators`` (planar chains and linkages, IFToMM A02, the
scalable spatial slider-crank of Saura et al.) and are read by the model reader, so they are
exactly what their saved files load.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from solver.generators import mechanisms
from solver.generators.slider_crank import slider_crank_model
from solver.model import ModelError
from solver.model import description as d
from solver.model.io import model_from_data

#: name → (title, parameters [(key, label, kind, default, min, max)], builder(values) → data)
GENERATORS: dict[str, tuple[str, list[tuple], Any]] = {
    "pendulum": (
        "N-pendulum chain",
        [
            ("n", "Links N", int, 3, 1, 50),
            ("length", "Link length (m)", float, 0.5, 0.01, 100),
            ("mass", "Link mass (kg)", float, 1.0, 1e-6, 1e6),
        ],
        lambda v: mechanisms.pendulum_chain(v["n"], v["length"], v["mass"]),
    ),
    "four_bar": (
        "Four-bar linkage",
        [
            ("crank", "Crank (m)", float, 0.3, 0.01, 100),
            ("coupler", "Coupler (m)", float, 0.8, 0.01, 100),
            ("rocker", "Rocker (m)", float, 0.6, 0.01, 100),
            ("ground", "Ground (m)", float, 0.7, 0.01, 100),
            ("angle", "Crank angle (deg)", float, 60.0, -360, 360),
            ("driven", "Driven crank", bool, False, 0, 0),
            ("speed", "Crank speed (rad/s)", float, 6.283, -1000, 1000),
        ],
        lambda v: mechanisms.four_bar(
            v["crank"],
            v["coupler"],
            v["rocker"],
            v["ground"],
            v["angle"],
            v["speed"] if v["driven"] else None,
        ),
    ),
    "slider_crank": (
        "Slider-crank (planar)",
        [
            ("crank", "Crank (m)", float, 0.2, 0.01, 100),
            ("rod", "Rod (m)", float, 0.6, 0.01, 100),
            ("speed", "Crank speed (rad/s)", float, 6.283, -1000, 1000),
        ],
        lambda v: mechanisms.slider_crank(v["crank"], v["rod"], v["speed"]),
    ),
    "n_four_bar": (
        "N-four-bar (IFToMM A02)",
        [("n", "Loops N", int, 2, 1, 50)],
        lambda v: mechanisms.n_four_bar(v["n"]),
    ),
    "spatial_slider_crank": (
        "Scalable spatial slider-crank (Saura et al.)",
        [
            ("k", "Dyads k", int, 3, 1, 100),
            ("offset", "Slider offset e (m)", float, 0.5, 0, 10),
            ("driven", "Driven (kinematic)", bool, False, 0, 0),
        ],
        lambda v: slider_crank_model(v["k"], offset=v["offset"], driven=v["driven"]),
    ),
}


def generate(kind: str, **values: Any) -> d.Model:
    """The model of generator ``kind`` with ``values`` (defaults for the rest)."""
    title, params, build = GENERATORS[kind]
    full = {p[0]: p[3] for p in params}
    full.update(values)
    try:
        return model_from_data(build(full))
    except ValueError as error:  # ModelError is a ValueError too
        if isinstance(error, ModelError):
            raise
        raise ModelError(title, str(error)) from None


class GeneratorsDialog(QDialog):
    """Pick a mechanism, set its parameters; ``model()`` after ``accept``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Generate a mechanism")
        self.setObjectName("generatorsDialog")
        layout = QVBoxLayout(self)
        self.kind = QComboBox(self)
        self.kind.setObjectName("generatorKind")
        self.pages = QStackedWidget(self)
        self.inputs: dict[str, dict[str, QWidget]] = {}
        for key, (title, params, _build) in GENERATORS.items():
            self.kind.addItem(title, key)
            page = QWidget(self.pages)
            form = QFormLayout(page)
            widgets: dict[str, QWidget] = {}
            for name, label, kind, default, low, high in params:
                if kind is int:
                    w = QSpinBox(page)
                    w.setRange(int(low), int(high))
                    w.setValue(int(default))
                elif kind is bool:
                    w = QCheckBox(page)
                    w.setChecked(bool(default))
                else:
                    w = QDoubleSpinBox(page)
                    w.setDecimals(4)
                    w.setRange(float(low), float(high))
                    w.setValue(float(default))
                w.setObjectName(f"gen_{key}_{name}")
                widgets[name] = w
                form.addRow(label, w)
            self.inputs[key] = widgets
            self.pages.addWidget(page)
        self.kind.currentIndexChanged.connect(self.pages.setCurrentIndex)
        layout.addWidget(self.kind)
        layout.addWidget(self.pages)
        self.error = QLabel("", self)
        self.error.setStyleSheet("color: #b3261e;")
        self.error.setWordWrap(True)
        layout.addWidget(self.error)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.result_model: d.Model | None = None

    def values(self) -> tuple[str, dict[str, Any]]:
        key = self.kind.currentData()
        out: dict[str, Any] = {}
        for name, w in self.inputs[key].items():
            out[name] = w.isChecked() if isinstance(w, QCheckBox) else w.value()
        return key, out

    def accept(self) -> None:
        key, values = self.values()
        try:
            self.result_model = generate(key, **values)
        except ModelError as error:
            self.error.setText(str(error))
            return
        super().accept()
