"""The repository stands on its own: sources are cited by author and year (docs/references.md).

Code, tests, benchmarks, docs, README and examples never refer to the source documents by
labels a reader cannot resolve (a bare document number with a section, "its Table 1", a file
path outside the repository, a design note or a tracker number).
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("solver", "app", "tests", "benchmarks", "docs", "examples", "README.md")
SUFFIXES = {".py", ".md", ".json", ".txt", ".toml", ".csv"}
#: foreign-format inputs of the importer tests are kept byte for byte
SKIPPED_DIRS = (ROOT / "tests" / "importers" / "data",)

LABEL = r"00[0-4]"
#: the folder outside the repository that reading notes once pointed into, the design
#: note's name and the tracker's word (built here so this file names none of them itself)
OUTSIDE, NOTE, TRACKER = "sha" + "red", "DES" + "IGN", "is" + "sue"
#: the start of a label: not inside a number ("0.001: 3.6e-5") or a word
B = r"(?<![\w.])"
PATTERNS = [
    rf"{B}{LABEL} ?§",  # "000 §6.3.7"
    rf"{B}{LABEL}(?:'s|’s)",  # "004's Table 1"
    rf"\({LABEL}\)",  # "(004)"
    rf"{B}{LABEL}:",  # "003:L1881"
    rf"{B}{LABEL} (?:Ch\.|ch\.|Table|eqs?\.|Fig\.|E\d|App\.)",  # "002 Ch. 6", "001 E3"
    rf"(?i:\bseeds? {LABEL}\b)",  # "seed 002"
    rf"\bthe {LABEL} (?:thesis|paper|summary)",
    rf"\b(?:in|of|from) {LABEL}\b(?! ?[0-9])",  # "in 003"
    rf"\| {LABEL} \|",  # a table cell
    rf"\.\./{OUTSIDE}",
    rf"{OUTSIDE}/(?:seed|method)s",
    rf"{NOTE} §",
    rf"(?i:\b{TRACKER} [0-9]+)",
]
PATTERN = re.compile("|".join(f"(?:{p})" for p in PATTERNS))


def _files():
    for entry in SCANNED:
        path = ROOT / entry
        candidates = [path] if path.is_file() else sorted(path.rglob("*"))
        for f in candidates:
            if not f.is_file() or f.suffix not in SUFFIXES or f == Path(__file__).resolve():
                continue
            if any(d in f.parents for d in SKIPPED_DIRS) or "__pycache__" in f.parts:
                continue
            yield f


def test_sources_are_cited_by_author_and_year():
    hits = []
    for f in _files():
        text = f.read_text(encoding="utf-8", errors="replace")
        # JSON files may escape "§" as \u00a7
        text = text.replace("\\u00a7", "§")
        for number, line in enumerate(text.splitlines(), 1):
            match = PATTERN.search(line)
            if match:
                hits.append(f"{f.relative_to(ROOT)}:{number}: {match.group(0)!r}")
    assert not hits, "internal labels instead of citations (see docs/references.md):\n" + "\n".join(
        hits
    )


def test_the_scan_finds_what_it_should():
    """The patterns catch each form they are meant for and leave ordinary numbers alone."""
    for bad in (
        "as in 000 §6.3.7",
        "004's Table 1",
        "the slider-crank (004)",
        "003:L1881-2214",
        "002 Ch. 6",
        "001 E3",
        "Seed 000",
        "the 000 thesis",
        "as in 003.",
        "| 001 |",
        f"see ../{OUTSIDE}/methods",
        f"{OUTSIDE}/seeds/002",
        f"{NOTE} §2",
        f"{TRACKER.title()} 4 acceptance",
    ):
        assert PATTERN.search(bad), bad
    for good in (
        "24 000 steps",
        "dt = 0.001 s",
        "1e-004",
        "Urkullu (2019) §6.3.7",
        "id 1000",
        "{0.001: 3.6e-5}",
    ):
        assert not PATTERN.search(good), good


def test_references_list_every_source():
    text = (ROOT / "docs" / "references.md").read_text(encoding="utf-8")
    for name in (
        "Urkullu (2019)",
        "García Vallejo (2006)",
        "the null-space Newmark thesis",
        "Villar Alegría (2018)",
        "Saura et al.",
    ):
        assert name in text, name
