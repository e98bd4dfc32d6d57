"""The model description: dataclasses, JSON load/save, validation, time functions."""

from solver.model.description import (
    GROUND,
    Driver,
    FlexibleBody,
    Force,
    Joint,
    Model,
    Output,
    PointMass,
    RigidBody,
    Shape,
    SolverSettings,
)
from solver.model.errors import ModelError, ModelWarning
from solver.model.functions import TimeFunction, parse_function
from solver.model.io import load_model, model_from_data, model_to_json, parse_model_text, save_model
from solver.model.writer import write_model

__all__ = [
    "GROUND",
    "Driver",
    "FlexibleBody",
    "Force",
    "Joint",
    "Model",
    "ModelError",
    "ModelWarning",
    "Output",
    "PointMass",
    "RigidBody",
    "Shape",
    "SolverSettings",
    "TimeFunction",
    "load_model",
    "model_from_data",
    "model_to_json",
    "parse_function",
    "parse_model_text",
    "save_model",
    "write_model",
]
