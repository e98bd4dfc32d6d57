"""A MUBODYNA model folder: its nine input files, parsed (``matlab``), and their element
lists in order (index k of a list is the element MUBODYNA numbers k; 0 is ground)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from solver.importers.common import ImportError_
from solver.importers.mubodyna.matlab import Element, ParsedFile, parse_file

#: logical file → (accepted file names, list variable, element template)
FILES = {
    "bodies": (("inBodies.m",), "Bodies", "Body"),
    "points": (("inPoints.m",), "Points", "Point"),
    "vectors1": (("inVectors1.m",), "Vectors1", "Vector1"),
    "vectors2": (("inVectors2.m",), "Vectors2", "Vector2"),
    "joints": (("inJoints.m",), "Joints", "Joint"),
    "forces": (("inForces.m",), "Forces", "Force"),
    "functs": (
        ("inFuncts.m", "inFunctions.m", "inFunction.m", "inFuncs.m"),
        "Functs",
        "Funct",
    ),
    "animate": (("inAnimate.m",), "Points_anim", "Point"),
    "solver": (("inSolver.m",), None, None),
}

#: the fields of MUBODYNA's struct templates (user input and computed ones)
TEMPLATE_FIELDS = {
    "Body": [
        "r",
        "p",
        "A",
        "r_dot",
        "w",
        "p_dot",
        "r_dot2",
        "w_dot",
        "irc",
        "irv",
        "ira",
        "mass",
        "m_inv",
        "M",
        "M_inv",
        "Jp",
        "J",
        "Jp_inv",
        "J_inv",
        "f",
        "n",
        "wp",
        "wp_dot",
        "radius",
        "modulus",
        "poisson",
        "color",
        "pts",
    ],
    "Point": ["Bindex", "sPp", "sP", "rP", "sP_dot", "rP_dot", "rP_dot2"],
    "Vector1": ["Bindex", "sp", "sP", "s", "s_dot"],
    "Vector2": ["iPindex", "jPindex", "iBindex", "jBindex", "d", "d_dot"],
    "Joint": [
        "type",
        "iPindex",
        "jPindex",
        "iBindex",
        "iBIndex",
        "jBindex",
        "jBindex_a",
        "iVindex_a",
        "jVindex_a",
        "V2index",
        "Ac",
        "iFunct",
        "disk",
        "R",
    ],
    "Force": [
        "type",
        "gravity",
        "wgt",
        "V2index",
        "k",
        "el",
        "el_0",
        "c",
        "f_a",
        "iPindex",
        "jPindex",
        "iBindex",
        "jBindex",
        "np",
        "plane_normal_vector",
        "sphere_radius",
        "restitution",
        "force_model",
        "n_exponent",
        "friction",
        "fric_model",
        "mu",
        "mus",
        "vs",
        "z",
        "sigma0",
        "sigma1",
        "sdw",
        "Pi",
        "Pj",
        "Bi",
        "Bj",
        "V2",
        "Ri",
        "Rj",
        "K",
        "Cr",
        "n",
        "F_model",
    ],
    "Funct": ["type", "coeff", "x_start", "f_start", "x_end", "f_end", "x_max", "f_max"],
}


@dataclass
class ModelFiles:
    """The parsed files of a folder: element lists by logical name, solver variables."""

    folder: Path
    lists: dict[str, list[Element]] = field(default_factory=dict)
    filenames: dict[str, str] = field(default_factory=dict)
    solver: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def _find(folder: Path, names: tuple[str, ...]) -> Path | None:
    present = {p.name.lower(): p for p in folder.iterdir() if p.is_file()}
    for n in names:
        if n.lower() in present:
            return present[n.lower()]
    return None


def read_folder(folder: Path) -> ModelFiles:
    """Parse the nine files of ``folder`` (all must exist, as MUBODYNA requires)."""
    if not folder.is_dir():
        raise ImportError_(folder.name, "is not a folder")
    out = ModelFiles(folder)
    missing = [names[0] for names, _, _ in FILES.values() if _find(folder, names) is None]
    if missing:
        raise ImportError_(
            folder.name,
            f"is not a MUBODYNA model folder: {', '.join(missing)} missing (a model folder "
            "holds the nine files inAnimate, inBodies, inForces, inFuncts, inJoints, inPoints, "
            "inSolver, inVectors1, inVectors2)",
        )
    for key, (names, list_name, template) in FILES.items():
        path = _find(folder, names)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise ImportError_(path.name, f"cannot be read ({exc.strerror})") from None
        if len(text) > 1_000_000:
            raise ImportError_(path.name, "is larger than 1 MB: not a MUBODYNA input file")
        parsed = parse_file(text, path.name)
        out.filenames[key] = path.name
        if key == "solver":
            out.solver = dict(parsed.variables)
            continue
        for e in parsed.elements.values():
            _check_fields(path.name, e)
        out.lists[key] = _element_list(parsed, list_name, template, out.warnings)
    return out


def _check_fields(filename: str, element: Element) -> None:
    known = TEMPLATE_FIELDS[element.template]
    for name in element.fields:
        if name not in known:
            raise ImportError_(
                f"{filename}: {element.name}",
                f"is not a field of MUBODYNA's {element.template}_struct (fields: "
                f"{', '.join(known)})",
                name,
            )


def _element_list(parsed: ParsedFile, list_name: str, template: str, warnings) -> list[Element]:
    """The file's output list: ``list_name = [E1; E2; ...]``, or the one list of its
    elements under another name (with a warning), or empty."""
    name = list_name if list_name in parsed.lists else None
    if name is None:
        candidates = [n for n, items in parsed.lists.items() if items]
        if len(candidates) == 1:
            name = candidates[0]
            warnings.append(
                f"{parsed.name}: the elements are listed in {name}, not {list_name} "
                f"(read as {list_name})"
            )
        elif parsed.elements:
            raise ImportError_(
                parsed.name, f"does not list its elements in {list_name} = [...]", list_name
            )
        else:
            return []
    out = []
    for item in parsed.lists[name]:
        element = parsed.elements[item]
        if element.template != template:
            raise ImportError_(
                f"{parsed.name}: {item}",
                f"is a {element.template}, but {list_name} lists {template} elements",
                list_name,
            )
        out.append(element)
    return out
